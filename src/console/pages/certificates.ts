import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listCertificates, MAX_CERTIFICATE_FILE_BYTES, revokeCertificate, uploadCertificate, type CertificateUpload } from '../../engine/certificates/index.js';
import { EngineError, invalidField } from '../../engine/errors.js';
import { readingMultipart } from '../../http/routes/multipart-errors.js';
import { mayPerform, requireCsrf } from '../access.js';
import { date } from '../format.js';
import { html } from '../html.js';
import { t, type Lang } from '../i18n/index.js';
import { engineMessage } from '../i18n/rules.js';
import { csrfField, flash, sendPage } from '../layout.js';
import { field, fieldErrors, formError, scroller } from './admin-form.js';

/** Longest password part read, in bytes (as the API). */
const MAX_PASSWORD_BYTES = 4096;

/** A refusal of the file as a whole goes beside the field it is about: the password, or the file. */
function uploadRefusal(lang: Lang, error: unknown): Map<string, string> | null {
  if (!(error instanceof EngineError) || !['validation', 'too_large', 'conflict'].includes(error.kind)) return null;
  return new Map([[error.code === 'Certificate.WrongPassword' ? 'password' : 'file', engineMessage(lang, error)]]);
}

async function certificatesPage(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, errors?: Map<string, string>) {
  const { lang, session } = request.consoleRequest;
  const role = session!.principal.role;
  const certificates = await listCertificates(app.engine, request.tenantId);
  const mayRevoke = mayPerform(role, 'certificates.revoke');
  return sendPage(request, reply, {
    title: t(lang, 'cert.title'),
    status: errors ? 400 : 200,
    main: html`<section aria-labelledby="certs"><h2 id="certs">${t(lang, 'cert.list')}</h2>
${certificates.length
  ? scroller(t(lang, 'cert.list'), html`<table><thead><tr><th scope="col">${t(lang, 'cert.subject')}</th><th scope="col">${t(lang, 'cert.notAfter')}</th><th scope="col">${t(lang, 'admin.status')}</th>${mayRevoke ? html`<th scope="col">${t(lang, 'admin.actions')}</th>` : ''}</tr></thead>
<tbody>${certificates.map((c) => html`<tr><th scope="row">${c.subject.commonName ?? c.subject.text}${c.subject.holderId ? html` <span class="hint">${c.subject.holderId}</span>` : ''}</th><td>${date(lang, c.notAfter)}</td><td><span class="badge cert-${c.status}">${t(lang, `cert.status.${c.status}`)}</span></td>${
      mayRevoke
        ? html`<td>${c.status === 'revoked' ? '' : html`<form method="post" action="/console/certificates/${c.id}/revoke" data-confirm="${t(lang, 'cert.revoke.confirm')}">${csrfField(request)}<button type="submit" class="danger" aria-label="${t(lang, 'cert.revoke')} ${c.subject.commonName ?? c.serialNumber}">${t(lang, 'cert.revoke')}</button></form>`}</td>`
        : ''
    }</tr>`)}</tbody></table>`)
  : html`<p>${t(lang, 'cert.none')}</p>`}
</section>
${mayPerform(role, 'certificates.upload')
  ? html`<section aria-labelledby="upload"><h2 id="upload">${t(lang, 'cert.upload')}</h2>
<form method="post" action="/console/certificates" enctype="multipart/form-data" class="admin-form">${csrfField(request)}${formError(errors)}
${field({ id: 'cert-file', name: 'file', label: t(lang, 'cert.file'), errors, attrs: html` type="file" accept=".p12,.pfx,application/x-pkcs12" required` })}
${field({ id: 'cert-password', name: 'password', label: t(lang, 'cert.password'), errors, attrs: html` type="password" autocomplete="off"` })}
<button type="submit">${t(lang, 'cert.upload.submit')}</button>
</form></section>`
  : ''}`,
  });
}

/** GET /console/certificates: expiry and status; upload a .p12 with its password, revoke (admins). */
export default async function certificatesRoutes(app: FastifyInstance) {
  app.get('/certificates', { config: { consoleAccess: 'certificates.list' } }, async (request, reply) => certificatesPage(app, request, reply));

  app.post('/certificates', { config: { consoleAccess: 'certificates.upload', consoleMultipart: true } }, async (request, reply) => {
    if (!request.isMultipart()) throw new EngineError('validation', 'Certificate.NotMultipart', 'Send the certificate as multipart/form-data with the fields file and password.');
    const upload: { file?: Buffer; password?: string } = {};
    let csrf: string | undefined;
    let passwordTooLong = false;
    try {
      await readingMultipart(MAX_CERTIFICATE_FILE_BYTES, async () => {
        for await (const part of request.parts({ limits: { fieldSize: MAX_PASSWORD_BYTES } })) {
          if (part.type === 'file') {
            const bytes = await part.toBuffer();
            // A browser sends an empty part for a file input left empty.
            if (part.fieldname === 'file' && bytes.length > 0) upload.file = bytes;
          } else if (part.fieldname === '_csrf') csrf = String(part.value);
          else if (part.fieldname === 'password') {
            passwordTooLong = part.valueTruncated;
            upload.password = String(part.value);
          }
        }
      });
    } catch (error) {
      // Nothing is acted on before the token is checked, refusals of the body included.
      requireCsrf(request, csrf);
      throw error;
    }
    requireCsrf(request, csrf);
    try {
      if (passwordTooLong) throw invalidField('password', 'Certificate.PasswordTooLong', `The password has more than ${MAX_PASSWORD_BYTES} bytes.`);
      await uploadCertificate(app.engine, request.tenantId, upload satisfies CertificateUpload);
    } catch (error) {
      const { lang } = request.consoleRequest;
      const errors = fieldErrors(lang, error) ?? uploadRefusal(lang, error);
      if (!errors) throw error;
      return certificatesPage(app, request, reply, errors);
    }
    flash(request, reply, 'flash.certUploaded');
    return reply.redirect('/console/certificates', 303);
  });

  app.post<{ Params: { id: string } }>('/certificates/:id/revoke', { config: { consoleAccess: 'certificates.revoke' } }, async (request, reply) => {
    await revokeCertificate(app.engine, request.tenantId, request.params.id);
    flash(request, reply, 'flash.certRevoked');
    return reply.redirect('/console/certificates', 303);
  });
}

import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EngineError, invalidField } from '../../engine/errors.js';
import {
  CertificateView,
  getCertificate,
  listCertificates,
  MAX_CERTIFICATE_FILE_BYTES,
  revokeCertificate,
  uploadCertificate,
  type CertificateUpload,
} from '../../engine/certificates/index.js';
import { Uuid } from '../../engine/schema-types.js';
import { problems } from '../problem.js';
import { readingMultipart } from './multipart-errors.js';

const IdParams = Type.Object({ id: Uuid() });
/** Longest password part read, in bytes. */
const MAX_PASSWORD_BYTES = 4096;

export default async function certificateRoutes(base: FastifyInstance) {
  const { engine } = base;
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/v1/certificates',
    {
      config: { access: 'certificates.upload' },
      // The multipart body is read part by part below; the schema documents it.
      validatorCompiler: () => (value: unknown) => ({ value }),
      schema: {
        tags: ['Certificates'],
        summary: 'Upload a .p12/.pfx certificate with its password (multipart fields `file` and `password`)',
        consumes: ['multipart/form-data'],
        body: Type.Object({
          file: Type.String({ format: 'binary', description: 'The .p12/.pfx file' }),
          password: Type.String({ description: 'Its password (may be empty)' }),
        }),
        response: { 200: CertificateView, ...problems(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) => {
      if (!request.isMultipart()) {
        throw new EngineError('validation', 'Certificate.NotMultipart', 'Send the certificate as multipart/form-data with the fields file and password.');
      }
      const upload: { file?: Buffer; password?: string } = {};
      await readingMultipart(MAX_CERTIFICATE_FILE_BYTES, async () => {
        for await (const part of request.parts({ limits: { fieldSize: MAX_PASSWORD_BYTES } })) {
          if (part.type === 'file') {
            const bytes = await part.toBuffer();
            if (part.fieldname === 'file') upload.file = bytes;
          } else if (part.fieldname === 'password') {
            // busboy cuts a longer value silently; a cut password would only fail as the wrong one.
            if (part.valueTruncated) throw invalidField('password', 'Certificate.PasswordTooLong', `The password has more than ${MAX_PASSWORD_BYTES} bytes.`);
            upload.password = String(part.value);
          }
        }
      });
      return uploadCertificate(engine, request.tenantId, upload satisfies CertificateUpload);
    },
  );

  app.get(
    '/api/v1/certificates',
    {
      config: { access: 'certificates.list' },
      schema: {
        tags: ['Certificates'],
        summary: "The tenant's certificates, newest first, with their status now",
        response: { 200: Type.Array(CertificateView), ...problems(401, 403) },
      },
    },
    async (request) => listCertificates(engine, request.tenantId),
  );

  app.get(
    '/api/v1/certificates/:id',
    {
      config: { access: 'certificates.get' },
      schema: {
        tags: ['Certificates'],
        summary: 'One certificate',
        params: IdParams,
        response: { 200: CertificateView, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => getCertificate(engine, request.tenantId, request.params.id),
  );

  app.post(
    '/api/v1/certificates/:id/revoke',
    {
      config: { access: 'certificates.revoke' },
      schema: {
        tags: ['Certificates'],
        summary: 'Revoke for good: the certificate never signs again',
        params: IdParams,
        response: { 200: CertificateView, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => revokeCertificate(engine, request.tenantId, request.params.id),
  );
}

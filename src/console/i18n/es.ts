/**
 * The console's words in Spanish of the Dominican Republic: the catalogue.
 * Keys are `area.what`; `{name}` is a parameter `t()` fills in (escaped by
 * the page, never here). en.ts must have exactly these keys.
 */
import { adminEs } from './admin.js';
import { ecfEs } from './ecf.js';
import { issueEs } from './issue.js';

const shell = {
  'app.name': 'Consola e-CF',
  'shell.skip': 'Saltar al contenido',
  'shell.nav': 'Navegación principal',
  'shell.role': 'Rol: {role}',
  'shell.rnc': 'RNC {rnc}',
  'shell.signOut': 'Cerrar sesión',
  'shell.language': 'Idioma',
  'shell.languageApply': 'Cambiar',
  'shell.assetsMissing': 'Los estilos y el script de la consola no están construidos (ejecute npm run build); la consola funciona, sin ellos.',
  'nav.home': 'Inicio',
  'nav.ecf': 'e-CF',
  'nav.issue': 'Emitir',
  'nav.received': 'Recibidos',
  'nav.sequences': 'Secuencias',
  'nav.certificates': 'Certificados',
  'nav.webhooks': 'Webhooks',
  'nav.certification': 'Certificación',
  'role.admin_tenant': 'Administrador',
  'role.emisor': 'Emisor',
  'role.consultor': 'Consultor',
  'lang.es': 'Español',
  'lang.en': 'English',
  'signIn.title': 'Iniciar sesión',
  'signIn.intro': 'Entre con una clave API de su contribuyente. La clave decide qué puede ver y hacer, igual que en la API.',
  'signIn.key': 'Clave API',
  'signIn.keyHint': 'Empieza por ecf_. Se crea con: ecf key create --tenant <RNC> --role consultor',
  'signIn.submit': 'Entrar',
  'signIn.invalid': 'La clave API no es válida o fue revocada.',
  'signIn.missing': 'Escriba una clave API.',
  'signIn.organization': 'Esa es una clave de organización: administra la organización (contribuyentes, miembros), no un contribuyente. Entre con una clave de contribuyente.',
  'flash.signedOut': 'Sesión cerrada.',
  'flash.signedIn': 'Sesión iniciada.',
  'flash.language': 'Idioma cambiado.',
  'overview.title': 'Inicio',
  'overview.today': 'e-CF de hoy ({date})',
  'overview.status': 'Estado',
  'overview.count': 'Cantidad',
  'overview.total': 'Total',
  'status.signed': 'Firmado',
  'status.accepted': 'Aceptado',
  'status.accepted_conditional': 'Aceptado condicional',
  'status.rejected': 'Rechazado',
  'status.review': 'En revisión',
  'status.failed': 'Fallido',
  'error.title': 'Error',
  'error.back': 'Volver al inicio',
  'error.400': 'La solicitud no es válida.',
  'error.401': 'Su sesión terminó o no ha iniciado sesión.',
  'error.401.action': 'Iniciar sesión',
  'error.403': 'No tiene permiso para esto.',
  'error.403.origin': 'La solicitud vino de otro sitio y fue rechazada.',
  'error.403.csrf': 'El formulario venció o no vino de esta consola. Recargue la página e intente de nuevo.',
  'error.404': 'Esta página no existe.',
  'error.500': 'Algo falló en el servidor. El error quedó registrado.',
  'confirm.default': '¿Está seguro?',
} as const satisfies Record<string, string>;

/** The whole catalogue: the shell's words here, each area's in its own file (i18n/<area>.ts). */
export const es = { ...shell, ...ecfEs, ...issueEs, ...adminEs };

export type MessageKey = keyof typeof es;

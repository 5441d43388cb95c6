import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * The authority's status host (statusecf, NOTES §3, DT p.47–51): service
 * status, maintenance windows and "is this environment up", each behind
 * `Authorization: Apikey <key>`. Served at the root of the sandbox, as the
 * real host serves them at its root, so `taxauth.status_url` is the
 * sandbox's own URL. Scriptable through `/_sandbox/status`: the status of
 * each environment and the announced windows.
 *
 * Answers are in the shapes DT shows: a list of `{servicio, estatus,
 * ambiente}`, `{ventanaMantenimientos: [{ambiente, horaInicio, horaFin,
 * dias}]}` in Dominican time (`9:00 AM`, `dd-MM-yyyy`), and `{estado}`.
 */

export const SANDBOX_STATUS_API_KEY = 'sandbox-status-key';

type Segment = 'testecf' | 'certecf' | 'ecf';
const SEGMENTS: readonly Segment[] = ['testecf', 'certecf', 'ecf'];

/** verificarestado's `ambiente` numbers (DT p.51) and the names the host writes. */
const AMBIENTE: Readonly<Record<Segment, { readonly number: number; readonly name: string }>> = {
  testecf: { number: 1, name: 'PreCertificacion' },
  ecf: { number: 2, name: 'Produccion' },
  certecf: { number: 3, name: 'Certificacion' },
};

const SERVICES = [
  'Autenticación',
  'Recepción',
  'Consulta Resultado',
  'Consulta Estado',
  'Consulta Directorio',
  'Consulta TrackIds',
  'Aprobación Comercial',
  'Anulación Rangos',
  'Recepción FC',
];

const AVAILABLE = 'Disponible';
const UNAVAILABLE = 'No Disponible';
const DAY_MS = 86_400_000;
const DOMINICAN_OFFSET_MS = -4 * 60 * 60 * 1000;

export interface SandboxWindow {
  readonly id: string;
  readonly environment: Segment;
  /** UTC ISO instants. */
  readonly startsAt: string;
  readonly endsAt: string;
}

const SegmentSchema = Type.Union([Type.Literal('testecf'), Type.Literal('certecf'), Type.Literal('ecf')]);
const Instant = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$', errorMessage: 'must be an ISO instant such as 2026-03-10T13:00:00Z' });

export const StatusCommandSchema = Type.Union([
  Type.Object({ environment: SegmentSchema, available: Type.Boolean() }, { additionalProperties: false }),
  Type.Object({ addWindow: Type.Object({ environment: SegmentSchema, startsAt: Instant, endsAt: Instant }, { additionalProperties: false }) }, { additionalProperties: false }),
  Type.Object({ removeWindow: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ clearWindows: Type.Literal(true) }, { additionalProperties: false }),
  Type.Object({ apiKey: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ garble: Type.Boolean() }, { additionalProperties: false }),
]);
export type StatusCommand = Static<typeof StatusCommandSchema>;

export interface SandboxStatusControl {
  /** The one key the services accept. */
  apiKey(): string;
  setApiKey(key: string): void;
  /** An environment answers "No Disponible" while false (and during its windows). */
  setAvailable(environment: Segment, available: boolean): void;
  /** Announces a window (at most 24 h, shown in Dominican time); returns it with its id. */
  addWindow(window: { environment: Segment; startsAt: string | Date; endsAt: string | Date }): SandboxWindow;
  removeWindow(id: string): boolean;
  clearWindows(): void;
  windows(): readonly SandboxWindow[];
  /** While on, every service answers a JSON shape the authority never documented. */
  garble(on: boolean): void;
  /** Calls answered (or refused) since the start or the last reset. */
  calls(): number;
  reset(): void;
}

interface StatusState {
  apiKey: string;
  down: Set<Segment>;
  windows: SandboxWindow[];
  garbled: boolean;
  calls: number;
}

export function createStatusServices(now: () => Date, apiKey = SANDBOX_STATUS_API_KEY): { control: SandboxStatusControl; routes(app: FastifyInstance): Promise<void> } {
  const fresh = (): StatusState => ({ apiKey, down: new Set(), windows: [], garbled: false, calls: 0 });
  let state = fresh();

  const inWindow = (segment: Segment): boolean => {
    const t = now().getTime();
    return state.windows.some((w) => w.environment === segment && Date.parse(w.startsAt) <= t && t < Date.parse(w.endsAt));
  };
  const statusOf = (segment: Segment): string => (state.down.has(segment) || inWindow(segment) ? UNAVAILABLE : AVAILABLE);

  const control: SandboxStatusControl = {
    apiKey: () => state.apiKey,
    setApiKey(key) {
      state.apiKey = key;
    },
    setAvailable(environment, available) {
      if (available) state.down.delete(environment);
      else state.down.add(environment);
    },
    addWindow({ environment, startsAt, endsAt }) {
      const start = new Date(startsAt);
      const end = new Date(endsAt);
      if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) throw new RangeError('addWindow: startsAt and endsAt must be instants');
      if (end <= start) throw new RangeError('addWindow: endsAt must come after startsAt');
      // The host writes a window as hours on a day: a longer one cannot be told.
      if (end.getTime() - start.getTime() > DAY_MS) throw new RangeError('addWindow: a window lasts at most 24 hours');
      const window: SandboxWindow = { id: randomUUID(), environment, startsAt: start.toISOString(), endsAt: end.toISOString() };
      state.windows.push(window);
      return window;
    },
    removeWindow(id) {
      const before = state.windows.length;
      state.windows = state.windows.filter((w) => w.id !== id);
      return state.windows.length < before;
    },
    clearWindows() {
      state.windows = [];
    },
    windows: () => [...state.windows],
    garble(on) {
      state.garbled = on;
    },
    calls: () => state.calls,
    reset() {
      state = fresh();
    },
  };

  /** True when the request carries `Authorization: Apikey <the key>`; otherwise answers 401. */
  const authorized = (request: FastifyRequest, reply: FastifyReply): boolean => {
    state.calls++;
    const m = /^apikey\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (m && m[1] === state.apiKey) return true;
    void reply.code(401).header('www-authenticate', 'Apikey').type('application/json; charset=utf-8').send({ mensaje: m ? 'Apikey inválido' : 'Apikey requerido' });
    return false;
  };

  /** The status host's services and their control, as a plugin (registered at the root: the host has no environment prefix). */
  const routes = async (app: FastifyInstance): Promise<void> => {
    app.get('/api/estatusservicios/obtenerestatus', async (request, reply) => {
      if (!authorized(request, reply)) return reply;
      if (state.garbled) return { servicios: 'todos bien' };
      return SEGMENTS.flatMap((segment) => SERVICES.map((servicio) => ({ servicio, estatus: statusOf(segment), ambiente: AMBIENTE[segment].name })));
    });

    app.get('/api/estatusservicios/obtenerventanasmantenimiento', async (request, reply) => {
      if (!authorized(request, reply)) return reply;
      if (state.garbled) return [{ desde: 'pronto' }];
      // Windows with the same environment and hours share one entry, their days listed, as the host writes them.
      const groups = new Map<string, { ambiente: string; horaInicio: string; horaFin: string; dias: string[] }>();
      for (const w of [...state.windows].sort((a, b) => a.startsAt.localeCompare(b.startsAt))) {
        const start = dominican(w.startsAt);
        const entry = { ambiente: AMBIENTE[w.environment].name, horaInicio: start.time, horaFin: dominican(w.endsAt).time };
        const key = `${entry.ambiente}|${entry.horaInicio}|${entry.horaFin}`;
        const group = groups.get(key) ?? { ...entry, dias: [] };
        group.dias.push(start.day);
        groups.set(key, group);
      }
      return { ventanaMantenimientos: [...groups.values()] };
    });

    app.get('/api/estatusservicios/verificarestado', async (request, reply) => {
      if (!authorized(request, reply)) return reply;
      const raw = (request.query as Record<string, unknown>).ambiente ?? (request.query as Record<string, unknown>).Ambiente;
      const segment = SEGMENTS.find((s) => String(AMBIENTE[s].number) === String(raw));
      if (!segment) return reply.code(400).send({ mensaje: 'El parámetro ambiente debe ser 1, 2 o 3' });
      if (state.garbled) return { ok: 1 };
      return { estado: statusOf(segment) };
    });

    app.post('/_sandbox/status', async (request, reply) => {
      const body = request.body;
      if (!Value.Check(StatusCommandSchema, body)) {
        // Errors from the command the body's keys point at, so they name the field, not only "no member of the union matched".
        const keys = body && typeof body === 'object' ? Object.keys(body) : [];
        const member = StatusCommandSchema.anyOf.find((m) => keys.some((k) => k !== 'environment' && k in m.properties)) ?? (keys.includes('environment') ? StatusCommandSchema.anyOf[0] : StatusCommandSchema);
        const errors = [...Value.Errors(member, body)].slice(0, 10).map((e) => `${e.path || '/'}: ${e.message}`);
        return reply.code(400).send({ error: 'invalid sandbox status command', errors });
      }
      try {
        if ('addWindow' in body) return { ok: true, window: control.addWindow(body.addWindow) };
        if ('removeWindow' in body) return { ok: control.removeWindow(body.removeWindow) };
        if ('clearWindows' in body) control.clearWindows();
        else if ('apiKey' in body) control.setApiKey(body.apiKey);
        else if ('garble' in body) control.garble(body.garble);
        else control.setAvailable(body.environment, body.available);
      } catch (e) {
        return reply.code(400).send({ error: 'invalid sandbox status command', errors: [(e as Error).message] });
      }
      return { ok: true };
    });

    app.get('/_sandbox/status', async () => ({
      environments: Object.fromEntries(SEGMENTS.map((s) => [s, statusOf(s)])),
      windows: control.windows(),
      garbled: state.garbled,
      calls: state.calls,
    }));
  };

  return { control, routes };
}

/** An instant as the host writes it: `dd-MM-yyyy` and `h:mm AM`, Dominican time. */
function dominican(iso: string): { day: string; time: string } {
  const d = new Date(Date.parse(iso) + DOMINICAN_OFFSET_MS);
  const pad = (n: number) => String(n).padStart(2, '0');
  const h = d.getUTCHours();
  return {
    day: `${pad(d.getUTCDate())}-${pad(d.getUTCMonth() + 1)}-${d.getUTCFullYear()}`,
    time: `${h % 12 === 0 ? 12 : h % 12}:${pad(d.getUTCMinutes())} ${h < 12 ? 'AM' : 'PM'}`,
  };
}

import type { FastifyInstance } from 'fastify';
import { runReadiness } from '../../engine/health/index.js';

/**
 * The probes: no API key (a load balancer or kubelet has none), and nothing
 * in the body that helps an attacker: the names and statuses of the checks,
 * never their detail (paths, versions, hosts, store errors), which
 * `ecf doctor` prints on the machine itself.
 */
export default async function healthRoutes(app: FastifyInstance) {
  const { engine } = app;
  const noStore = (reply: { header(k: string, v: string): unknown }) => reply.header('cache-control', 'no-store');
  // Probes that arrive while a run is under way share its answer: however many callers (this
  // route needs no key), the store sees one readiness run at a time.
  let running: ReturnType<typeof runReadiness> | undefined;
  const readiness = () => (running ??= runReadiness(engine).finally(() => (running = undefined)));

  // The process answers: liveness. It reads nothing, so a slow store never gets a live process restarted.
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    noStore(reply);
    return { status: 'ok' };
  });

  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    noStore(reply);
    // A stop has begun (draining.ts): out of the balancer at once, whatever the store says.
    if (app.draining.active) return reply.status(503).send({ status: 'unready', checks: [{ name: 'stopping', status: 'fail' }] });
    const { ready, checks } = await readiness();
    const body = { status: ready ? 'ready' : 'unready', checks: checks.map((c) => ({ name: c.name, status: c.status })) };
    return reply.status(ready ? 200 : 503).send(body);
  });
}

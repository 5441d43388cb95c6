/**
 * The console's one script: pages work without it; it adds what needs it.
 *
 * - `<form data-confirm="Question?">` asks before submitting (the question
 *   is the attribute's text, the page's language).
 * - `<element data-poll="/console/…">` is refreshed every 5 s from that JSON
 *   route while the page is visible: the route answers an object, and each
 *   descendant `data-field="<name>"` gets the text of that member. A member
 *   `done: true` stops the polling (nothing left to change).
 * - `postJson(url, body)` (window.ecfConsole) posts with the page's CSRF token in `x-csrf-token`.
 */
import './ecf.js';
import './issue.js';
import './admin.js';

const POLL_MS = 5000;

document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  const question = form.dataset.confirm;
  if (question !== undefined && !window.confirm(question)) event.preventDefault();
});

function csrfToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
}

async function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrfToken() },
    body: JSON.stringify(body),
  });
}

function startPolling(element: HTMLElement): void {
  const url = element.dataset.poll;
  if (!url) return;
  const timer = window.setInterval(async () => {
    if (document.hidden) return;
    try {
      const response = await fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } });
      if (!response.ok) return;
      const data = (await response.json()) as Record<string, unknown>;
      for (const target of element.querySelectorAll<HTMLElement>('[data-field]')) {
        const value = data[target.dataset.field ?? ''];
        if (value !== undefined && value !== null) target.textContent = String(value);
      }
      if (data.done === true) window.clearInterval(timer);
    } catch {
      // The next tick tries again (a restart, a dropped connection).
    }
  }, POLL_MS);
}

for (const element of document.querySelectorAll<HTMLElement>('[data-poll]')) startPolling(element);

(window as unknown as { ecfConsole: unknown }).ecfConsole = { postJson };

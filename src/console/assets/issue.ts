/**
 * The script of the console's issue form (pages/issue.ts); the form works
 * without it. It adds and removes lines in place (the "add line" and
 * "remove line" submits otherwise round-trip to the server), offers a recent
 * buyer's name when its RNC is picked, and, as the person types, asks POST
 * /console/issue/preview (the engine's own validation and totals) and shows
 * the totals and the errors of the fields already touched.
 */
const DEBOUNCE_MS = 300;

interface Preview {
  valid: boolean;
  totals: Record<string, string> | null;
  errors: Record<string, string>;
  top: string[];
}

function csrf(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
}

const idOf = (name: string): string => `f-${name.replace(/[^A-Za-z0-9]+/g, '-').replace(/-$/, '')}`;

function fields(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new FormData(form)) if (typeof v === 'string' && k !== '_csrf' && k !== 'action') out[k] = v;
  return out;
}

/** Gives each line fieldset its index: names, ids, labels, legend and remove button. */
function renumber(form: HTMLFormElement): void {
  const lineLabel = form.dataset.lineLabel ?? '{n}';
  const removeLabel = form.dataset.removeLabel ?? '{n}';
  form.querySelectorAll<HTMLFieldSetElement>('[data-line]').forEach((set, i) => {
    const legend = set.querySelector('legend');
    if (legend) legend.textContent = lineLabel.replace('{n}', String(i + 1));
    for (const el of set.querySelectorAll<HTMLElement>('[name^="lines["], [id^="f-lines-"], [for^="f-lines-"], [data-error-for^="lines["], [aria-describedby^="f-lines-"]')) {
      const name = el.getAttribute('name');
      if (name) el.setAttribute('name', name.replace(/^lines\[\d+\]/, `lines[${i}]`));
      for (const attr of ['id', 'for', 'aria-describedby']) {
        const value = el.getAttribute(attr);
        if (value) el.setAttribute(attr, value.replace(/f-lines-\d+-/g, `f-lines-${i}-`));
      }
      const errorFor = el.dataset.errorFor;
      if (errorFor) el.dataset.errorFor = errorFor.replace(/^lines\[\d+\]/, `lines[${i}]`);
    }
    const remove = set.querySelector<HTMLButtonElement>('button[value^="remove:"]');
    if (remove) {
      remove.value = `remove:${i}`;
      remove.textContent = removeLabel.replace('{n}', String(i + 1));
    }
  });
}

function showErrors(form: HTMLFormElement, preview: Preview, touched: ReadonlySet<string>): void {
  for (const note of form.querySelectorAll<HTMLElement>('[data-error-for]')) {
    const name = note.dataset.errorFor ?? '';
    // An untouched field keeps what the server said; a touched one shows the engine's word now.
    if (!touched.has(name) && !note.hidden) continue;
    const text = touched.has(name) ? preview.errors[name] : undefined;
    const control = form.querySelector<HTMLElement>(`#${CSS.escape(idOf(name))}`);
    note.textContent = text ?? '';
    note.hidden = !text;
    if (control) {
      if (text) {
        control.setAttribute('aria-invalid', 'true');
        control.setAttribute('aria-describedby', note.id);
      } else {
        control.removeAttribute('aria-invalid');
        control.removeAttribute('aria-describedby');
      }
    }
  }
}

function showTotals(form: HTMLFormElement, preview: Preview): void {
  for (const cell of form.querySelectorAll<HTMLElement>('[data-total]')) cell.textContent = preview.totals?.[cell.dataset.total ?? ''] ?? '—';
  const pending = form.querySelector<HTMLElement>('[data-totals-pending]');
  if (pending) pending.hidden = preview.valid;
  // The server's "the receipt has errors" no longer holds once the engine finds none.
  const top = form.ownerDocument.querySelector<HTMLElement>('[data-top-errors]');
  if (top && preview.valid) top.hidden = true;
}

function enhance(form: HTMLFormElement): void {
  const touched = new Set<string>();
  const lines = form.querySelector<HTMLElement>('[data-lines]');
  let timer = 0;
  let asked = 0;

  const preview = async () => {
    const mine = ++asked;
    try {
      const response = await fetch('/console/issue/preview', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf() },
        body: JSON.stringify(fields(form)),
      });
      if (!response.ok || mine !== asked) return;
      const answer = (await response.json()) as Preview;
      showTotals(form, answer);
      showErrors(form, answer, touched);
    } catch {
      // The next keystroke asks again; the form still posts without the preview.
    }
  };
  const soon = () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void preview(), DEBOUNCE_MS);
  };

  form.addEventListener('input', (event) => {
    const target = event.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) {
      touched.add(target.name);
      if (target.name === 'buyer.rnc') offerName(form, target.value);
      if (target.name === 'type') showReference(form, target.value);
    }
    soon();
  });
  form.addEventListener('click', (event) => {
    const button = (event.target as Element | null)?.closest('button');
    if (!button || !lines) return;
    if (button.hasAttribute('data-add-line')) {
      event.preventDefault();
      const first = lines.querySelector<HTMLFieldSetElement>('[data-line]');
      if (!first) return;
      const copy = first.cloneNode(true) as HTMLFieldSetElement;
      for (const input of copy.querySelectorAll('input')) input.value = input.name.endsWith('.quantity') ? '1' : '';
      for (const select of copy.querySelectorAll('select')) select.selectedIndex = 0;
      for (const note of copy.querySelectorAll<HTMLElement>('[data-error-for]')) {
        note.textContent = '';
        note.hidden = true;
      }
      for (const bad of copy.querySelectorAll('[aria-invalid]')) {
        bad.removeAttribute('aria-invalid');
        bad.removeAttribute('aria-describedby');
      }
      lines.append(copy);
      renumber(form);
      copy.querySelector('input')?.focus();
    } else if (button.value.startsWith('remove:')) {
      event.preventDefault();
      const set = button.closest('[data-line]');
      if (lines.querySelectorAll('[data-line]').length > 1) set?.remove();
      renumber(form);
      soon();
    }
  });
}

/** The note's reference fields, shown for the types that need them (or while they hold something). */
function showReference(form: HTMLFormElement, type: string): void {
  const set = form.querySelector<HTMLFieldSetElement>('[data-note-reference]');
  if (!set) return;
  const filled = [...set.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input, select')].some((c) => c.value !== '');
  set.hidden = !(set.dataset.noteReference ?? '').split(' ').includes(type) && !filled;
}

/** A recent buyer picked by RNC: its name, unless the person already wrote one. */
function offerName(form: HTMLFormElement, rnc: string): void {
  const option = Array.from(document.querySelectorAll<HTMLOptionElement>('#recent-buyers option')).find((o) => o.value === rnc);
  const name = form.querySelector<HTMLInputElement>('[name="buyer.name"]');
  if (option && name && !name.value && option.textContent) name.value = option.textContent;
}

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-issue-form]')) enhance(form);

export {};

import { describe, expect, it } from 'vitest';
import { count, date, dateTime, money } from '../../src/console/format.js';
import { chooseLanguage, t } from '../../src/console/i18n/index.js';
import { en } from '../../src/console/i18n/en.js';
import { es } from '../../src/console/i18n/es.js';

describe('console formats and language', () => {
  it('formats money from decimal strings exactly, per language', () => {
    expect(money('es', '1234.5')).toBe('RD$1,234.50');
    expect(money('en', '1234.5')).toMatch(/^DOP\s1,234\.50$/);
    // Beyond a double's precision: the string's digits, not a float's.
    expect(money('es', '12345678901234567.89')).toBe('RD$12,345,678,901,234,567.89');
    expect(money('es', '-0.01')).toBe('-RD$0.01');
    expect(() => money('es', '1e3')).toThrow(/not a decimal string/);
  });

  it('shows dates and times in Dominican time (UTC-4), per language', () => {
    // 02:30 UTC on 1 March is still 28 February in Santo Domingo.
    expect(date('es', '2026-03-01T02:30:00Z')).toBe('28 feb 2026');
    expect(date('en', '2026-03-01T02:30:00Z')).toBe('Feb 28, 2026');
    expect(dateTime('en', '2026-03-01T02:30:00Z')).toMatch(/^Feb 28, 2026, 10:30\sPM$/);
    expect(count('es', 1234567)).toBe('1,234,567');
  });

  it('has the same keys in both catalogues, fills parameters, and picks the language from the cookie, then Accept-Language, then Spanish', () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(es).sort());
    expect(t('es', 'shell.rnc', { rnc: '131' })).toBe('RNC 131');
    expect(t('en', 'overview.today', { date: 'x' })).toBe("Today's e-CF (x)");
    expect(chooseLanguage('en', 'es')).toBe('en');
    expect(chooseLanguage('fr', 'de, en;q=0.7, es;q=0.3')).toBe('en');
    expect(chooseLanguage(undefined, 'en;q=0, es-DO')).toBe('es');
    expect(chooseLanguage(undefined, undefined)).toBe('es');
  });
});

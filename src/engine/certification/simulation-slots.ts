import type { EcfType } from '../documents/payload.js';

/**
 * The Paso 4 counters of the certification portal (CERTIFICATION.md §2.6):
 * one slot per counter, in the order the simulation issues them (ordinary
 * e-CF first, then the consumo invoices under DOP 250,000 that go as RFCE,
 * then the notes, which may only modify e-CF the authority has accepted,
 * §2.7). Type 32 has two counters, split at DOP 250,000.00.
 */

export type SlotId = '31' | '32' | '32-rfce' | '33' | '34' | '41' | '43' | '44' | '45' | '46' | '47';

export interface SimulationSlot {
  readonly id: SlotId;
  readonly type: EcfType;
  /** The counter's name as the portal shows it. */
  readonly label: string;
  readonly quota: number;
  /** 33 and 34: issued only once an e-CF they can modify is accepted. */
  readonly note: boolean;
}

export const SIMULATION_SLOTS: readonly SimulationSlot[] = [
  { id: '31', type: 31, label: '31', quota: 4, note: false },
  { id: '32', type: 32, label: '32 >=RD$250mil', quota: 2, note: false },
  { id: '41', type: 41, label: '41', quota: 2, note: false },
  { id: '43', type: 43, label: '43', quota: 2, note: false },
  { id: '44', type: 44, label: '44', quota: 2, note: false },
  { id: '45', type: 45, label: '45', quota: 2, note: false },
  { id: '46', type: 46, label: '46', quota: 2, note: false },
  { id: '47', type: 47, label: '47', quota: 2, note: false },
  { id: '32-rfce', type: 32, label: '32 < RD$250mil', quota: 4, note: false },
  { id: '33', type: 33, label: '33', quota: 1, note: true },
  { id: '34', type: 34, label: '34', quota: 2, note: true },
];

export const slotOf = (id: string): SimulationSlot | undefined => SIMULATION_SLOTS.find((s) => s.id === id);

/** The whole quota: 25 e-CF. */
export const SIMULATION_QUOTA = SIMULATION_SLOTS.reduce((n, s) => n + s.quota, 0);

/** A type-32 payload's slot, by whether it goes as an RFCE (strictly under DOP 250,000.00). */
export const slotOfType = (type: EcfType, takesRfce: boolean): SlotId => (type === 32 ? (takesRfce ? '32-rfce' : '32') : (String(type) as SlotId));

/*
 * Readings of what CERTIFICATION.md leaves UNCERTAIN or SILENT about Paso 4,
 * here so each is easy to find and to change. Each is the safe one: at worst
 * it issues more e-CF than the portal needed (its range has 10,000,000
 * numbers per type), never fewer.
 */

/**
 * A rejected simulation e-CF restarts the portal's Paso 4 counters: the
 * screen says sequences are not reused "after the tests restart because of
 * a rejection" (§1.2 Paso 4), and the built-in sandbox plays it so. The run
 * then sends no notes, and the next run starts a new round that issues the
 * whole quota again with new e-NCFs. false: only the rejected position is
 * issued again.
 */
export const PASO4_REJECTION_RESTARTS = true;

/** Aceptado Condicional: SILENT on whether the portal counts it. Not counted (as in Paso 2): the position gets a new e-CF on the next run, with no restart. */
export const PASO4_CONDITIONAL_COUNTS = false;

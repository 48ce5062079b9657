// A small schema language for JSON that comes from outside (a permalink, the
// browser's history, a result file): every field type-checked, unknown fields
// refused, and a fresh copy made of only the checked fields, so nothing a
// crafted input carries (extra fields, __proto__) gets through.  Infer<S> is
// the TypeScript type a schema describes, so a schema can be checked against
// the interface it stands for at compile time (result.ts does).

export type Schema =
  | { k: 'string'; max: number; pattern?: RegExp; help?: string }
  | { k: 'number' }
  | { k: 'int'; min: number; max: number; step?: number }
  | { k: 'enum'; values: readonly (string | number | boolean)[] }
  | { k: 'object'; fields: Record<string, Schema>; optional: Record<string, Schema> }
  | { k: 'array'; of: Schema; max: number }
  | { k: 'record'; of: Schema; max: number }
  | { k: 'nullable'; of: Schema };

export interface StrS { k: 'string'; max: number; pattern?: RegExp; help?: string }
export interface NumS { k: 'number' }
/** A number from min to max that is a multiple of step (1 without it: a whole number). */
export interface IntS { k: 'int'; min: number; max: number; step?: number }
export interface EnumS<V extends readonly (string | number | boolean)[]> { k: 'enum'; values: V }
export interface ObjS<F extends Record<string, Schema>, O extends Record<string, Schema>> { k: 'object'; fields: F; optional: O }
export interface ArrS<T extends Schema> { k: 'array'; of: T; max: number }
export interface RecS<T extends Schema> { k: 'record'; of: T; max: number }
export interface NulS<T extends Schema> { k: 'nullable'; of: T }

const MAX_STRING = 1_000_000;
export const str = (max = MAX_STRING, pattern?: RegExp, help?: string): StrS => ({ k: 'string', max, pattern, help });
export const num: NumS = { k: 'number' };
export const int = (min = 0, max = Number.MAX_SAFE_INTEGER): IntS => ({ k: 'int', min, max });
export const oneOf = <const V extends readonly (string | number | boolean)[]>(...values: V): EnumS<V> => ({ k: 'enum', values });
export function obj<F extends Record<string, Schema>>(fields: F): ObjS<F, {}>;
export function obj<F extends Record<string, Schema>, O extends Record<string, Schema>>(fields: F, optional: O): ObjS<F, O>;
export function obj(fields: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return { k: 'object', fields, optional };
}
export const arr = <T extends Schema>(of: T, max = 1_000_000): ArrS<T> => ({ k: 'array', of, max });
export const rec = <T extends Schema>(of: T, max = 1000): RecS<T> => ({ k: 'record', of, max });
export const nul = <T extends Schema>(of: T): NulS<T> => ({ k: 'nullable', of });
/** Every member of a string union, with tsc checking the list is complete. */
export const members = <T extends string>(all: Record<T, true>) => Object.keys(all) as T[];

/** The TypeScript type a schema describes. */
export type Infer<S> = S extends { k: 'string' } ? string
  : S extends { k: 'number' | 'int' } ? number
  : S extends { k: 'enum'; values: readonly (infer V)[] } ? V
  : S extends { k: 'array'; of: infer T } ? Infer<T>[]
  : S extends { k: 'record'; of: infer T } ? Record<string, Infer<T>>
  : S extends { k: 'nullable'; of: infer T } ? Infer<T> | null
  : S extends { k: 'object'; fields: infer F; optional: infer O }
    ? Flat<{ [K in keyof F]: Infer<F[K]> } & { [K in keyof O]?: Infer<O[K]> }>
  : never;
type Flat<T> = { [K in keyof T]: T[K] };

/** Each assignable to the other (a field's type or optionality differs: false). */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Every field path of T ('.machine.cpu', '.rows[].paper.scale', ...): a field one side lacks: false. */
export type Paths<T, P extends string = ''> = T extends readonly (infer E)[] ? Paths<E, `${P}[]`>
  : T extends object ? { [K in keyof T & string]-?: `${P}.${K}` | Paths<NonNullable<T[K]>, `${P}.${K}`> }[keyof T & string]
  : never;
export type Expect<T extends true> = T;

/** A name as records (kernel settings, counters, parameters) use it for a key. */
export const name = str(100, /^[A-Za-z0-9_.-]+$/, 'a name of letters, digits, _ . and -');

/** A field of the wrong type or an unknown field: where (path), what was expected, what was found. */
export class SchemaError extends Error {
  /** "at result.rows[0].guest.real, expected a number, found null". */
  readonly detail: string;
  constructor(readonly path: string, expected: string, found: unknown) {
    const detail = `at ${path}, expected ${expected}, found ${describe(found)}`;
    super(detail);
    this.name = 'SchemaError';
    this.detail = detail;
  }
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return v.length > 40 ? 'a long string' : `the string ${JSON.stringify(v)}`;
  if (typeof v === 'number') return `the number ${v}`;
  if (typeof v === 'object') return 'an object';
  return String(v);
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** The path of the value check() is given, when it has none of its own. */
export const ROOT = 'the top level';
/** The path of field k of the value at path. */
export const at = (path: string, k: string) => (path === ROOT ? k : /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks v against schema s; returns a clean copy or throws SchemaError naming the path. */
export function check<S extends Schema>(s: S, v: unknown, path: string = ROOT): Infer<S> {
  return checkAny(s, v, path) as Infer<S>;
}

function checkAny(s: Schema, v: unknown, path: string): unknown {
  switch (s.k) {
    case 'string':
      if (typeof v !== 'string' || v.length > s.max || (s.pattern && !s.pattern.test(v))) {
        const what = s.help ?? (s.max < MAX_STRING ? `a string of at most ${s.max} characters` : 'a string');
        throw new SchemaError(path, what, v);
      }
      return v;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new SchemaError(path, 'a number', v);
      return v;
    case 'int':
      if (typeof v !== 'number' || !Number.isInteger(v / (s.step ?? 1)) || v < s.min || v > s.max) {
        const what = s.step !== undefined ? `a multiple of ${s.step}` : 'a whole number';
        throw new SchemaError(path, s.max === Number.MAX_SAFE_INTEGER ? `${what}, ${s.min} or more` : `${what} from ${s.min} to ${s.max}`, v);
      }
      return v;
    case 'enum':
      if (!s.values.includes(v as string)) throw new SchemaError(path, s.values.map((x) => JSON.stringify(x)).join(' or '), v);
      return v;
    case 'nullable':
      return v === null ? null : checkAny(s.of, v, path);
    case 'array': {
      if (!Array.isArray(v)) throw new SchemaError(path, 'a list', v);
      if (v.length > s.max) throw new SchemaError(path, `a list of at most ${s.max}`, `${v.length} items`);
      return v.map((x, i) => checkAny(s.of, x, `${path}[${i}]`));
    }
    case 'record': {
      if (!isPlainObject(v)) throw new SchemaError(path, 'an object', v);
      const entries = Object.entries(v);
      if (entries.length > s.max) throw new SchemaError(path, `at most ${s.max} entries`, `${entries.length}`);
      const out: Record<string, unknown> = {};
      for (const [k, x] of entries) {
        if (FORBIDDEN_KEYS.has(k) || !name.pattern!.test(k) || k.length > name.max) throw new SchemaError(at(path, k), name.help!, k);
        out[k] = checkAny(s.of, x, at(path, k));
      }
      return out;
    }
    case 'object': {
      if (!isPlainObject(v)) throw new SchemaError(path, 'an object', v);
      for (const k of Object.keys(v)) {
        if (!Object.hasOwn(s.fields, k) && !Object.hasOwn(s.optional, k)) throw new SchemaError(at(path, k), 'no such field', v[k]);
      }
      const out: Record<string, unknown> = {};
      for (const [k, fs] of Object.entries(s.fields)) {
        if (!Object.hasOwn(v, k)) throw new SchemaError(at(path, k), 'a value', undefined);
        out[k] = checkAny(fs, v[k], at(path, k));
      }
      for (const [k, fs] of Object.entries(s.optional)) {
        if (Object.hasOwn(v, k) && v[k] !== undefined) out[k] = checkAny(fs, v[k], at(path, k));
      }
      return out;
    }
  }
}

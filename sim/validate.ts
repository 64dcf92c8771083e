import { InputError } from "./errors.js";

/**
 * The largest magnitude any number in an input file may have: 1e12 ms is about 31
 * years, and 1e12 ms in µs (1e15) is still an exact integer in a double (< 2^53).
 */
export const NUMBER_MAGNITUDE_MAX = 1e12;

/**
 * Small validators for data files. Each takes the file name and the field path so
 * that an error reads `scenarios/x.json: faults[2].durationMs: expected a number >= 0, got "ten"`.
 */
export class Fields {
  constructor(
    readonly file: string,
    readonly path: string,
    readonly obj: Record<string, unknown>,
  ) {}

  static root(file: string, value: unknown, path = ""): Fields {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new InputError(file, path || "(top level)", `expected an object, got ${describe(value)}`);
    }
    return new Fields(file, path, value as Record<string, unknown>);
  }

  field(name: string): string {
    return this.path ? `${this.path}.${name}` : name;
  }

  fail(name: string, expected: string): never {
    throw new InputError(this.file, this.field(name), `${expected}, got ${describe(this.obj[name])}`);
  }

  has(name: string): boolean {
    return this.obj[name] !== undefined;
  }

  /** Reject keys not in `allowed` (typos should not pass silently). */
  only(allowed: readonly string[]): this {
    for (const k of Object.keys(this.obj)) {
      if (!allowed.includes(k)) {
        throw new InputError(this.file, this.field(k), `unknown field; expected one of: ${allowed.join(", ")}`);
      }
    }
    return this;
  }

  string(name: string, dflt?: string): string {
    const v = this.obj[name];
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== "string" || v.length === 0) this.fail(name, "expected a non-empty string");
    return v;
  }

  optString(name: string): string | undefined {
    return this.obj[name] === undefined ? undefined : this.string(name);
  }

  number(name: string, o: { min?: number; max?: number; integer?: boolean; dflt?: number } = {}): number {
    const v = this.obj[name];
    if (v === undefined && o.dflt !== undefined) return o.dflt;
    const kind = o.integer ? "an integer" : "a number";
    const range =
      o.min !== undefined && o.max !== undefined
        ? ` from ${o.min} to ${o.max}`
        : o.min !== undefined
          ? ` >= ${o.min}`
          : o.max !== undefined
            ? ` <= ${o.max}`
            : "";
    const want = `expected ${kind}${range}`;
    if (typeof v !== "number" || !Number.isFinite(v)) this.fail(name, want);
    if (o.integer && !Number.isInteger(v)) this.fail(name, want);
    if (o.min !== undefined && v < o.min) this.fail(name, want);
    if (o.max !== undefined && v > o.max) this.fail(name, want);
    // A side with no stated bound still gets one: times become µs in the event queue,
    // and 1e308 ms there is Infinity (a stack trace, not a message).
    if ((o.max === undefined && v > NUMBER_MAGNITUDE_MAX) || (o.min === undefined && v < -NUMBER_MAGNITUDE_MAX))
      this.fail(name, `${want}, at most ${NUMBER_MAGNITUDE_MAX} in size`);
    return v;
  }

  optNumber(name: string, o: { min?: number; max?: number; integer?: boolean } = {}): number | undefined {
    return this.obj[name] === undefined ? undefined : this.number(name, o);
  }

  boolean(name: string, dflt?: boolean): boolean {
    const v = this.obj[name];
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== "boolean") this.fail(name, "expected true or false");
    return v;
  }

  oneOf<T extends string>(name: string, values: readonly T[], dflt?: T): T {
    const v = this.obj[name];
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== "string" || !values.includes(v as T)) this.fail(name, `expected one of ${values.map((x) => JSON.stringify(x)).join(", ")}`);
    return v as T;
  }

  stringArray(name: string, dflt?: string[]): string[] {
    const v = this.obj[name];
    if (v === undefined && dflt !== undefined) return dflt;
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string" || x.length === 0)) this.fail(name, "expected a list of strings");
    return v as string[];
  }

  object(name: string, dflt: Record<string, unknown> | undefined = undefined): Fields {
    const v = this.obj[name];
    if (v === undefined && dflt !== undefined) return new Fields(this.file, this.field(name), dflt);
    if (typeof v !== "object" || v === null || Array.isArray(v)) this.fail(name, "expected an object");
    return new Fields(this.file, this.field(name), v as Record<string, unknown>);
  }

  array(name: string, dflt?: unknown[]): unknown[] {
    const v = this.obj[name];
    if (v === undefined && dflt !== undefined) return dflt;
    if (!Array.isArray(v)) this.fail(name, "expected a list");
    return v;
  }

  /** Fields of the i-th element of list `name`. */
  item(name: string, i: number, value: unknown): Fields {
    return Fields.root(this.file, value, `${this.field(name)}[${i}]`);
  }
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  const s = JSON.stringify(v);
  return s.length > 60 ? s.slice(0, 57) + "..." : s;
}

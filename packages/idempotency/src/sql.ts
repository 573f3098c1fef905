/**
 * The engine's only link to PostgreSQL: a statement's text and its values,
 * sent as one round trip. Any driver fits (`pgDatabase` for a `pg` pool;
 * an ORM's raw-query call); no ORM is needed.
 */
export interface Database {
  /** Sends one statement and gives its rows. */
  query<T extends object>(text: string, values: readonly unknown[]): Promise<T[]>;
}

/** What `pgDatabase` needs of a `pg` Pool (or Client). */
export interface PgQueryable {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * A Database on a `pg` pool. Each statement is named after its text, so every
 * pooled connection parses and plans it once and then only binds parameters;
 * `named: false` for a transaction pooler (PgBouncer), which loses names.
 */
export function pgDatabase(pool: PgQueryable, options: { named?: boolean } = {}): Database {
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name) {
      name = `idem_${hash(text)}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    async query<T extends object>(text: string, values: readonly unknown[]): Promise<T[]> {
      const result = await pool.query({
        ...(options.named === false ? {} : { name: nameOf(text) }),
        text,
        values: [...values],
      });
      return result.rows as T[];
    },
  };
}

/** FNV-1a, 52 bits in base 36: a statement name, not a secret. */
function hash(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(36);
}

/**
 * A piece of SQL with its values kept apart: built by the `sql` tag, nested
 * freely, numbered `$1, $2, …` only when a statement is rendered. Values are
 * never spliced into the text.
 */
export class Sql {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /**
   * The statement's text and values, for `Database.query`; numbering starts
   * after `offset`, for text that already uses `$1 … $offset` itself.
   */
  render(offset = 0): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    let text = "";
    const walk = (fragment: Sql) => {
      fragment.strings.forEach((part, i) => {
        text += part;
        if (i >= fragment.values.length) return;
        const value = fragment.values[i];
        if (value instanceof Sql) walk(value);
        else {
          values.push(value);
          text += `$${offset + values.length}`;
        }
      });
    };
    walk(this);
    return { text, values };
  }
}

/** `sql\`… ${value} …\``: a value becomes a parameter, a nested `Sql` is inlined. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql([...strings], values);
}

/** Text inlined as is: identifiers and keywords chosen by code, never by a request. */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

export const empty = raw("");

/** `parts` separated by `separator`. */
export function join(parts: readonly Sql[], separator = ", "): Sql {
  if (parts.length === 0) return empty;
  return new Sql(["", ...Array<string>(parts.length - 1).fill(separator), ""], parts);
}

/** Runs `statement` on `db`. */
export function run<T extends object>(db: Database, statement: Sql): Promise<T[]> {
  const { text, values } = statement.render();
  return db.query<T>(text, values);
}

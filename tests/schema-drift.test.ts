import { getDMMF } from "@prisma/get-dmmf";
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

/**
 * schema.prisma (what the Prisma client believes) and prisma/migrations (what
 * the database really has) must describe the same tables. Prisma's migrate
 * engine cannot run offline, so this test compares the two itself: the
 * schema through Prisma's own DMMF parser, the database through its catalog,
 * migrated by the project's runner in tests/global-setup.ts.
 */
type Dmmf = Exclude<ReturnType<typeof getDMMF>, { type: string; reason: string }>;
const dmmf = getDMMF({ datamodel: readFileSync("prisma/schema.prisma", "utf8") }) as Dmmf;
const { models, enums, indexes } = dmmf.datamodel;

const tableOf = (modelName: string) => {
  const model = models.find((m) => m.name === modelName)!;
  return model.dbName ?? model.name;
};
const columnOf = (modelName: string, fieldName: string) => {
  const field = models.find((m) => m.name === modelName)!.fields.find((f) => f.name === fieldName)!;
  return field.dbName ?? field.name;
};

/** The column type PostgreSQL reports for a Prisma scalar (with its @db. native type). */
function expectedType(field: Dmmf["datamodel"]["models"][number]["fields"][number]): string {
  if (field.kind === "enum") return enums.find((e) => e.name === field.type)!.dbName ?? field.type;
  const [native, args = []] = field.nativeType ?? [];
  if (native === "Uuid") return "uuid";
  if (native === "Char") return `bpchar(${args[0]})`;
  if (native === "Timestamptz") return `timestamptz(${args[0] ?? 6})`;
  const byScalar: Record<string, string> = {
    String: "text",
    Int: "int4",
    BigInt: "int8",
    Boolean: "bool",
    Float: "float8",
    Json: "jsonb",
    DateTime: "timestamp(3)",
  };
  return byScalar[field.type] ?? `unmapped ${field.type}`;
}

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: inject("databaseUrl") });
  await client.connect();
});
afterAll(() => client.end());

describe("schema.prisma and the migrated database", () => {
  it("have the same tables", async () => {
    const { rows } = await client.query<{ table_name: string }>(
      `select table_name from information_schema.tables
        where table_schema = 'public' and table_name <> '_prisma_migrations' order by 1`,
    );
    expect(rows.map((r) => r.table_name)).toEqual(models.map((m) => m.dbName ?? m.name).sort());
  });

  it("have the same columns, types and nullability", async () => {
    const { rows } = await client.query<{ table: string; column: string; type: string; nullable: boolean }>(
      `select c.relname as table, a.attname as column, not a.attnotnull as nullable,
              case when t.typname = 'timestamptz' then 'timestamptz(' || a.atttypmod || ')'
                   when t.typname = 'timestamp' then 'timestamp(' || a.atttypmod || ')'
                   when t.typname = 'bpchar' then 'bpchar(' || (a.atttypmod - 4) || ')'
                   else t.typname end as type
         from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_type t on t.oid = a.atttypid
         join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
          and c.relname <> '_prisma_migrations'`,
    );
    const actual = rows.map((r) => `${r.table}.${r.column} ${r.type}${r.nullable ? " null" : ""}`).sort();
    const expected = models
      .flatMap((m) =>
        m.fields
          .filter((f) => f.kind === "scalar" || f.kind === "enum")
          .map((f) => `${m.dbName ?? m.name}.${f.dbName ?? f.name} ${expectedType(f)}${f.isRequired ? "" : " null"}`),
      )
      .sort();
    expect(actual).toEqual(expected);
  });

  it("have the same primary keys, unique constraints and indexes", async () => {
    const { rows } = await client.query<{ table: string; kind: string; columns: string[] }>(
      `select t.relname as table,
              case when ix.indisprimary then 'id' when ix.indisunique then 'unique' else 'normal' end as kind,
              array(select a.attname || case when ix.indoption[k.i - 1] & 1 = 1 then ' desc' else '' end
                      from unnest(ix.indkey) with ordinality as k(attnum, i)
                      join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.i) as columns
         from pg_index ix join pg_class t on t.oid = ix.indrelid join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = 'public' and t.relname <> '_prisma_migrations'`,
    );
    const actual = rows.map((r) => `${r.table} ${r.kind} (${r.columns.join(", ")})`).sort();
    const expected = indexes
      .map((ix) => {
        const cols = ix.fields.map(
          (f) => columnOf(ix.model, f.name) + ((f as { sortOrder?: string }).sortOrder === "desc" ? " desc" : ""),
        );
        return `${tableOf(ix.model)} ${ix.type} (${cols.join(", ")})`;
      })
      .sort();
    expect(actual).toEqual(expected);
  });

  it("have the same enums", async () => {
    const { rows } = await client.query<{ name: string; labels: string[] }>(
      `select t.typname as name, array_agg(e.enumlabel::text order by e.enumsortorder) as labels
         from pg_type t join pg_enum e on e.enumtypid = t.oid group by t.typname`,
    );
    const actual = Object.fromEntries(rows.map((r) => [r.name, r.labels]));
    const expected = Object.fromEntries(
      enums.map((e) => [e.dbName ?? e.name, e.values.map((v) => v.dbName ?? v.name)]),
    );
    expect(actual).toEqual(expected);
  });

  it("have the same foreign keys", async () => {
    const { rows } = await client.query<{ def: string }>(
      `select c.conrelid::regclass || ' ' || pg_get_constraintdef(c.oid) as def
         from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where c.contype = 'f' and n.nspname = 'public'`,
    );
    const actions: Record<string, string> = {
      Cascade: " ON DELETE CASCADE",
      SetNull: " ON DELETE SET NULL",
      Restrict: " ON DELETE RESTRICT",
      NoAction: "",
    };
    const expected = models.flatMap((m) =>
      m.fields
        .filter((f) => f.kind === "object" && f.relationFromFields?.length)
        .map((f) => {
          const from = f.relationFromFields!.map((n) => columnOf(m.name, n)).join(", ");
          const to = f.relationToFields!.map((n) => columnOf(f.type, n)).join(", ");
          // Prisma's default: Restrict for a required relation, SetNull for an optional one.
          const rule = f.relationOnDelete ?? (f.isRequired ? "Restrict" : "SetNull");
          const onDelete = actions[rule] ?? ` ON DELETE ${rule}`;
          return `${m.dbName ?? m.name} FOREIGN KEY (${from}) REFERENCES ${tableOf(f.type)}(${to}) ON UPDATE CASCADE${onDelete}`;
        }),
    );
    expect(rows.map((r) => r.def).sort()).toEqual(expected.sort());
  });
});

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * The fields stripe-node's TypeScript types declare always present (not `?`),
 * read from the installed SDK with the TypeScript compiler, so the list
 * follows the SDK when it is upgraded instead of a hand-typed copy. A test
 * tool: the emulator itself never loads it.
 */
export interface ShapeChecker {
  /** Paths in `value` that the type named `typeName` (e.g. `Stripe.PaymentIntent`) requires and `value` lacks or nulls. */
  violations(typeName: string, value: unknown): string[];
}

export function loadShapeChecker(typeNames: readonly string[]): ShapeChecker {
  // Inside node_modules, so that `stripe` resolves to the installed SDK.
  const dir = path.join(process.cwd(), "node_modules/.cache/sdk-shapes");
  mkdirSync(dir, { recursive: true });
  const entry = path.join(dir, `shapes-${process.pid}.ts`);
  const aliases = typeNames.map((name, i) => `export type T${i} = ${name};`).join("\n");
  writeFileSync(entry, `import type Stripe from "stripe";\n${aliases}\n`);
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new Error("the shapes file was not compiled");
  const types = new Map<string, ts.Type>();
  const where = new Map<string, ts.Node>();
  for (const statement of source.statements) {
    if (!ts.isTypeAliasDeclaration(statement)) continue;
    const name = typeNames[Number(statement.name.text.slice(1))];
    if (name === undefined) continue;
    types.set(name, checker.getTypeAtLocation(statement.name));
    where.set(name, statement);
  }

  function check(type: ts.Type, value: unknown, at: string, node: ts.Node, out: string[], depth: number): void {
    if (depth > 6 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      const element = checker.isArrayType(type) ? checker.getTypeArguments(type as ts.TypeReference)[0] : undefined;
      if (element) value.forEach((item, i) => check(element, item, `${at}[${i}]`, node, out, depth + 1));
      return;
    }
    const objectType = pick(type, value as Record<string, unknown>);
    if (!objectType) return;
    for (const property of checker.getPropertiesOfType(objectType)) {
      const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
      const field = `${at}.${property.name}`;
      const propertyType = checker.getTypeOfSymbolAtLocation(property, node);
      const present = value as Record<string, unknown>;
      if (!(property.name in present) || present[property.name] === undefined) {
        if (!optional) out.push(`${field}: missing`);
        continue;
      }
      const item = present[property.name];
      if (item === null) {
        if (!acceptsNull(propertyType)) out.push(`${field}: null, but the type has no null`);
        continue;
      }
      check(propertyType, item, field, node, out, depth + 1);
    }
  }

  /** The object member of a union the value is (by the literal-typed fields it has, e.g. an event's `type`); null for primitives. */
  function pick(type: ts.Type, value: Record<string, unknown>): ts.Type | null {
    const members = (type.isUnion() ? type.types : [type]).filter(
      (member) => member.flags & ts.TypeFlags.Object && !checker.isArrayType(member),
    );
    if (members.length <= 1) return members[0] ?? null;
    return (
      members.find((member) =>
        checker.getPropertiesOfType(member).every((property) => {
          const literal = checker.getTypeOfSymbol(property);
          return !literal.isStringLiteral() || !(property.name in value) || value[property.name] === literal.value;
        }),
      ) ?? null
    );
  }

  function acceptsNull(type: ts.Type): boolean {
    return (type.isUnion() ? type.types : [type]).some((member) => member.flags & ts.TypeFlags.Null);
  }

  return {
    violations(typeName, value) {
      const type = types.get(typeName);
      const node = where.get(typeName);
      if (!type || !node) throw new Error(`${typeName} was not loaded`);
      const out: string[] = [];
      check(type, value, typeName, node, out, 0);
      return out;
    },
  };
}

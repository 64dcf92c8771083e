import ts from "typescript";

/**
 * Where a source compares a name: a string literal among `names` on either side of ==,
 * !=, === or !==, a `case` label, an element of an array or Set literal that is looked
 * up (`new Set([...])`, `[...].includes(x)`), or the key of an object literal (a table
 * keyed by name). Building a value that carries the name (`kind: "pause"`) is no
 * comparison. Comments never count: the source is parsed.
 */
export function comparedNames(file: string, text: string, names: ReadonlySet<string>): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (n: ts.Node, name: string, how: string): void => {
    const { line } = src.getLineAndCharacterOfPosition(n.getStart(src));
    found.push(`${file}:${line + 1}: "${name}" ${how}`);
  };
  const named = (n: ts.Node | undefined): string | undefined =>
    n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isIdentifier(n)) && names.has(n.text) ? n.text : undefined;
  const literal = (n: ts.Node | undefined): string | undefined => (n && !ts.isIdentifier(n) ? named(n) : undefined);
  const visit = (n: ts.Node): void => {
    if (ts.isBinaryExpression(n) && EQUALITY.has(n.operatorToken.kind)) {
      const name = literal(n.left) ?? literal(n.right);
      if (name) at(n, name, "compared");
    } else if (ts.isCaseClause(n)) {
      const name = literal(n.expression);
      if (name) at(n, name, "as a case label");
    } else if (ts.isArrayLiteralExpression(n) && isLookedUp(n)) {
      for (const e of n.elements) {
        const name = literal(e);
        if (name) at(e, name, "in a list looked up");
      }
    } else if ((ts.isPropertyAssignment(n) || ts.isMethodDeclaration(n) || ts.isShorthandPropertyAssignment(n)) && ts.isObjectLiteralExpression(n.parent)) {
      const name = ts.isComputedPropertyName(n.name) ? literal(n.name.expression) : named(n.name);
      if (name) at(n, name, "as a table key");
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return found;
}

const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
]);

/** An array literal that is a set of names to look a value up in: `new Set([...])`, `[...].includes(x)`. */
function isLookedUp(n: ts.ArrayLiteralExpression): boolean {
  const p = n.parent;
  if (ts.isNewExpression(p) && ts.isIdentifier(p.expression) && (p.expression.text === "Set" || p.expression.text === "Map")) return true;
  return ts.isPropertyAccessExpression(p) && p.expression === n && ["includes", "indexOf", "some", "find"].includes(p.name.text);
}

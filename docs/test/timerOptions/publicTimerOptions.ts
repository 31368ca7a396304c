/**
 * Every number a user hands to a public entry point whose name says it is a duration: a property
 * or parameter named `…Ms`, `…Seconds`, `…Period`, `…Delay`, `…Timeout`, `…Interval`, `…Jitter` or `…PerSecond`
 * (or `ms`, `delay`, `timeout`, `jitter`), found by walking the types of each package's exports with
 * the TypeScript compiler (the docs' own 5.9: the root's TypeScript 7 has no JS API).
 *
 * The walk follows what flows in: the parameters of exported functions, constructors and methods
 * (also the methods of the objects they return, such as `sim.faults.failNext`), the properties of
 * the option objects found there, and what a callback returns (a reconcile's `requeueAfterMs`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as TS from 'typescript';

const ts = createRequire(import.meta.url)('typescript') as typeof TS;
const root = fileURLToPath(new URL('../../../', import.meta.url));

/** A name that says "a duration". */
const DURATION = /(?:Ms|Seconds|Period|Delay|Timeout|Interval|Jitter|PerSecond)$|^(?:ms|delay|timeout|jitter)$/;

/** The source file of each public entry point: every export of every package that is not private. */
export function publicEntryPoints(): string[] {
  const files: string[] = [];
  for (const dir of readdirSync(join(root, 'packages'))) {
    const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as {
      private?: boolean;
      exports?: Record<string, string | Record<string, string>>;
    };
    if (pkg.private) continue;
    for (const target of Object.values(pkg.exports ?? {})) {
      const source = typeof target === 'object' ? target['@rxinformer/source'] : undefined;
      if (source) files.push(join(root, 'packages', dir, source));
    }
  }
  return files;
}

/** `package:Owner.name` of every duration-named input of the public API, sorted. */
export function publicTimerOptions(): string[] {
  const entries = publicEntryPoints();
  const program = ts.createProgram(entries, {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['@rxinformer/source'],
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const found = new Set<string>();
  const seen = { in: new Set<TS.Type>(), out: new Set<TS.Type>() };

  const ours = (node: TS.Node | undefined): boolean => {
    const file = node?.getSourceFile().fileName;
    return file !== undefined && file.startsWith(join(root, 'packages')) && !file.includes('node_modules');
  };
  const record = (node: TS.Node, name: string): void => {
    if (!DURATION.test(name)) return;
    const pkg = relative(join(root, 'packages'), node.getSourceFile().fileName).split('/')[0];
    found.add(`${pkg}:${ownerName(node)}${node.kind === ts.SyntaxKind.Parameter ? `(${name})` : `.${name}`}`);
  };

  /** Parameters flow in (their names recorded), a result flows out. */
  const visitSignature = (sig: TS.Signature, paramsIn: boolean): void => {
    for (const p of sig.getParameters()) {
      const decl = p.valueDeclaration;
      if (!decl || !ours(decl)) continue;
      if (paramsIn) record(decl, p.name);
      visit(checker.getTypeOfSymbolAtLocation(p, decl), paramsIn ? 'in' : 'out');
    }
    visit(sig.getReturnType(), paramsIn ? 'out' : 'in');
  };

  function visit(type: TS.Type, way: 'in' | 'out'): void {
    if (seen[way].has(type)) return;
    seen[way].add(type);
    if (type.isUnionOrIntersection()) return type.types.forEach((t) => visit(t, way));
    for (const arg of checker.getTypeArguments(type as TS.TypeReference) ?? []) visit(arg, way);
    for (const arg of type.aliasTypeArguments ?? []) visit(arg, way);
    const declared = type.getSymbol()?.declarations?.[0];
    for (const sig of type.getCallSignatures()) visitSignature(sig, way === 'out');
    for (const sig of type.getConstructSignatures()) visitSignature(sig, way === 'out');
    if (!(type.flags & ts.TypeFlags.Object) || (declared && !ours(declared) && !type.aliasSymbol)) return;
    for (const prop of checker.getPropertiesOfType(type)) {
      const decl = prop.valueDeclaration ?? prop.declarations?.[0];
      if (!decl || !ours(decl) || isPrivate(decl)) continue;
      const propType = checker.getTypeOfSymbolAtLocation(prop, decl);
      const method = ts.isMethodDeclaration(decl) || ts.isMethodSignature(decl);
      if (way === 'in' && !method) record(decl, prop.name);
      visit(propType, method ? 'out' : way); // a method of an object we hand out or take: its parameters flow in
    }
  }

  for (const file of entries) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!);
    for (const exported of module ? checker.getExportsOfModule(module) : []) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const decl = symbol.declarations?.[0];
      if (!decl) continue;
      if (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
        const type = checker.getDeclaredTypeOfSymbol(symbol);
        visit(type, /Options$|Timing$|Backoff$/.test(symbol.name) ? 'in' : 'out');
      }
      if (symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class | ts.SymbolFlags.Variable))
        visit(checker.getTypeOfSymbolAtLocation(symbol, decl), 'out');
      if (symbol.flags & ts.SymbolFlags.Class) visit(checker.getDeclaredTypeOfSymbol(symbol), 'out');
    }
  }
  return [...found].sort();
}

function isPrivate(decl: TS.Declaration): boolean {
  const flags = ts.getCombinedModifierFlags(decl);
  const name = (decl as TS.Declaration & { name?: TS.Node }).name;
  return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0 || (name !== undefined && ts.isPrivateIdentifier(name));
}

/** `Interface`, `Interface.property` for a nested literal, `Class.method` or `function` of a parameter. */
function ownerName(node: TS.Node): string {
  const parts: string[] = [];
  for (let n = node.parent; n && !ts.isSourceFile(n); n = n.parent) {
    const named = n as TS.Node & { name?: TS.Node };
    if (ts.isInterfaceDeclaration(n) || ts.isClassDeclaration(n) || ts.isTypeAliasDeclaration(n) || ts.isFunctionDeclaration(n)) {
      parts.unshift(named.name?.getText() ?? '(anonymous)');
      break;
    }
    if (
      (ts.isPropertySignature(n) ||
        ts.isPropertyDeclaration(n) ||
        ts.isMethodDeclaration(n) ||
        ts.isMethodSignature(n) ||
        ts.isVariableDeclaration(n)) &&
      named.name
    )
      parts.unshift(named.name.getText());
  }
  return parts.join('.');
}

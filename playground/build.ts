import { build, type Plugin } from "esbuild";
import { createRequire, builtinModules } from "node:module";
import { join, relative, sep } from "node:path";
import { packageRoot } from "../sim/paths.js";
import { browserScript } from "../reports/bundle.js";
import { lockstepVersion } from "../harness/version.js";

/**
 * The playground's browser bundle: the simulator, the built-in designs, the runner,
 * the checkers and the run report's renderer, bundled by esbuild from the same sources
 * `lockstep run` uses. What only Node has is kept out by small stand-ins:
 * - node:crypto becomes browser-crypto.ts (Node's SHA-256 and SHA-1, which histories
 *   carry: the Raft designs' replica-state digests);
 * - other node built-ins (fs, path, module, vm, ...) become functions that throw a
 *   clear error if a run ever reaches them (the built-in designs never do; the real
 *   Lua of the library clients, through node:module, is the one path that would);
 * - the version and the report page's script are fixed at build time;
 * - the library design (real npm libraries in node:vm realms) is left out.
 */
export async function buildPlaygroundScript(): Promise<string> {
  const root = packageRoot();
  const out = await build({
    entryPoints: [join(root, "playground", "page.ts")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    write: false,
    legalComments: "none",
    charset: "utf8",
    logLevel: "silent",
    plugins: [standIns()],
  });
  return out.outputFiles[0]!.text.replace(/<\/script/gi, "<\\/script");
}

const NS = "lockstep-stand-in";

function standIns(): Plugin {
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  const req = createRequire(import.meta.url);
  const root = packageRoot();
  return {
    name: "lockstep-browser-stand-ins",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (a) => {
        if (a.path === "node:crypto" || a.path === "crypto") return { path: join(root, "playground", "browser-crypto.ts") };
        if (builtins.has(a.path)) return { path: a.path.replace(/^node:/, ""), namespace: NS + "-node" };
        if (a.kind === "entry-point") return undefined;
        if (!a.path.startsWith(".")) return undefined;
        const standIn = STAND_IN_FILES[relative(root, join(a.resolveDir, a.path)).split(sep).join("/")];
        return standIn ? { path: standIn, namespace: NS } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: NS + "-node" }, (a) => {
        const names = Object.keys(req(a.path) as object).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== "default");
        const lines = names.map((n) => `export const ${n} = unavailable(${JSON.stringify(n)});`);
        return {
          contents: `function unavailable(name) { return function () { throw new Error("lockstep playground: node:${a.path} " + name + " is not available in the browser"); }; }\n${lines.join("\n")}\nexport default { ${names.join(", ")} };`,
          loader: "js",
        };
      });
      b.onLoad({ filter: /.*/, namespace: NS }, (a) => ({ contents: STAND_INS[a.path]!(), loader: "js" }));
    },
  };
}

/** Source files (as imported, ".js") replaced in the browser, by the stand-in's name. */
const STAND_IN_FILES: Record<string, string> = {
  "harness/version.js": "version",
  "reports/bundle.js": "report-script",
  "designs/library/design.js": "library-design",
};

const STAND_INS: Record<string, () => string> = {
  version: () => `export function lockstepVersion() { return ${JSON.stringify(lockstepVersion())}; }`,
  "report-script": () => `const s = ${JSON.stringify(browserScript("run"))};\nexport function browserScript() { return s; }`,
  "library-design": () =>
    `export const library = { name: "library", description: "a real lock library in node:vm (not in the playground)", family: "redis-nodes", runs: "adapter", profile() { throw new Error("lockstep playground: the library design needs Node"); }, parseOptions() { throw new Error("lockstep playground: the library design runs real npm libraries and needs Node; use lockstep run"); }, setup() { throw new Error("lockstep playground: the library design needs Node"); } };`,
};

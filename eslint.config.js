// Lint: typescript-eslint's recommended rules, plus the project's own: functions short
// enough to read against the paper they implement, and no host clock, timer or randomness
// where a seeded run must be deterministic.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const HOST_NONDETERMINISM = [
  { object: "Date", property: "now", message: "use the process's virtual clock (ctx.wallMs / ctx.monoUs)" },
  { object: "Math", property: "random", message: "use the run's seeded rng (ctx.rng)" },
  { object: "performance", property: "now", message: "use the process's virtual clock (ctx.monoUs)" },
];

// Plain JavaScript files (bin/, scripts/, configs, library adapters and fixtures) run on Node.
const NODE_GLOBALS = Object.fromEntries(
  [
    "require",
    "module",
    "exports",
    "process",
    "__dirname",
    "__filename",
    "console",
    "Buffer",
    "URL",
    "fetch",
    "setTimeout",
    "clearTimeout",
    "setInterval",
    "clearInterval",
    "setImmediate",
    "queueMicrotask",
  ].map((name) => [name, "readonly"]),
);

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "runs/**", "test-output/**", "mutation-report/**", ".stryker-tmp*/**", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: "module" },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      // Function-type constraints ((...args: any[]) => any) need it; strict tsc catches the rest.
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  {
    files: ["**/*.ts"],
    ignores: ["test/**"],
    // One idea per function, benchmarks included; npm run lint's --max-warnings 0 fails any over 60.
    rules: { "max-lines-per-function": ["warn", { max: 60, skipBlankLines: true, skipComments: true, IIFEs: true }] },
  },
  {
    files: ["sim/**/*.ts", "services/**/*.ts", "designs/**/*.ts", "faults/**/*.ts", "attacks/**/*.ts", "checkers/**/*.ts", "causes/**/*.ts"],
    // A design's real-mode client (and its helpers) runs against real servers in real time:
    // real mode is the one exception to determinism (docs/real-mode.md).
    ignores: [
      "sim/sandbox/**",
      "designs/library/adapters/**",
      "designs/**/real-client.ts",
      "designs/library/real-driver*.ts",
      "designs/real-client.ts",
      "designs/real-ioredis.ts",
    ],
    rules: {
      "no-restricted-properties": ["error", ...HOST_NONDETERMINISM],
      "no-restricted-globals": [
        "error",
        { name: "setTimeout", message: "use ctx.setTimer / ctx.sleep" },
        { name: "setInterval", message: "use ctx.setTimer" },
        { name: "setImmediate", message: "the simulator orders events itself" },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: "new Date() reads the host clock; use the process's virtual clock" },
      ],
    },
  },
  {
    // The sandbox membrane is the one module that runs the prelude and reaches its functions
    // (docs/architecture.md, "The sandbox membrane"; test/architecture/membrane.test.ts).
    files: ["**/*.ts"],
    ignores: ["sim/sandbox/membrane.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/sandbox/prelude.js", "./prelude.js"], message: "only sim/sandbox/membrane.ts runs the prelude; go through the membrane" }] },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    languageOptions: { globals: NODE_GLOBALS },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);

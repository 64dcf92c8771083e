import { build } from "esbuild";
const r = await build({ entryPoints: [process.argv[2]], bundle: true, write: false, metafile: true, platform: "node", format: "esm", packages: "external", outdir: "/tmp/x9" });
const ins = r.metafile.inputs;
const entry = Object.keys(ins).find(f => f.endsWith(process.argv[2].replace(/^dist\//,"")));
// BFS from entry, static imports only
const parent = new Map([[entry, null]]); const q=[entry];
while (q.length) { const f=q.shift(); for (const i of ins[f].imports) { if (i.kind==="dynamic-import") continue; const t=i.path; if (!parent.has(t)) { parent.set(t,f); if (ins[t]) q.push(t);} } }
for (const target of process.argv.slice(3)) { let c=[target], p=parent.get(target); if (p===undefined) { console.log(target, "NOT STATIC"); continue;} while(p){c.push(p);p=parent.get(p);} console.log(c.reverse().join(" -> ")); }
console.log("static files", [...parent.keys()].filter(k=>ins[k]).length, "bytes", [...parent.keys()].filter(k=>ins[k]).reduce((a,k)=>a+ins[k].bytes,0));

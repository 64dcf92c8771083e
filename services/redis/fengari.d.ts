// fengari ships no types; lua.ts uses only its C-API mirror, typed loosely here.
declare module "fengari" {
  const fengari: {
    lua: any;
    lauxlib: any;
    lualib: any;
    to_luastring(s: string): Uint8Array;
    to_jsstring(b: Uint8Array): string;
  };
  export default fengari;
}

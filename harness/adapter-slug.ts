/** A scenario-name-safe word for an adapter: `examples/my-lock/adapter.ts` → `my-lock-adapter`. */
export function adapterSlug(lock: string): string {
  const parts = lock.split(/[\\/]/).filter((p) => p.length > 0 && p !== "." && p !== "..");
  const file = (parts.pop() ?? lock).replace(/\.[cm]?[jt]s$/, "");
  const words = file === "adapter" || file === "index" ? [parts.pop() ?? "", file] : [file];
  const slug = words
    .join("-")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug.length > 0 ? slug : "lock";
}

// Escape corpus (issue 46): locale arguments other than undefined — an empty list, a
// locale ICU lacks, an object — fall back to the host's LANG unless resolved in the realm.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const d = new Date(86400000 * 200);
    const out = [];
    for (const l of [[], ["xx-YY"], "zz", [undefined].filter(Boolean), { length: 0 }]) {
      const row = [];
      for (const f of [
        () => (1234567.891).toLocaleString(l),
        () => d.toLocaleString(l),
        () => d.toLocaleDateString(l, { month: "long" }),
        () => "a".localeCompare("B", l),
        () => "i".toLocaleUpperCase(l),
        () => new Intl.NumberFormat(l).resolvedOptions().locale,
        () => new Intl.DateTimeFormat(l).resolvedOptions().locale,
        () => new Intl.Collator(l).resolvedOptions().locale,
        () => new Intl.PluralRules(l).resolvedOptions().locale,
        () => 12n.toLocaleString(l),
        () => [1.5, d].toLocaleString(l),
      ]) {
        try {
          row.push(f());
        } catch (e) {
          row.push(`${e.name}: ${e.message}`);
        }
      }
      out.push(row);
    }
    return out;
  },
};

// Escape corpus: Intl.DateTimeFormat().format() with no date (the host clock, zone and locale).
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const f = new Intl.DateTimeFormat();
    const o = f.resolvedOptions();
    return [f.format(), o.locale, o.timeZone, Intl.DateTimeFormat(undefined, { hour: "numeric" }).format(), f.formatToParts().length];
  },
};

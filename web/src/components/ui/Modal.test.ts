import { describe, expect, it } from "vitest";

import { MODAL_WIDTHS } from "./Modal";

describe("MODAL_WIDTHS", () => {
  it("are SPEC 9's presets in px", () => {
    expect(MODAL_WIDTHS).toEqual({
      narrow: 420,
      medium: 520,
      mediumish: 650,
      wide: 800,
      "extra-wide": 900,
      "super-wide": 1100,
    });
  });
});

import { describe, expect, it } from "vitest";

import { type Session, currentFirst, deviceText, endOthersText, endedText, isMobile, listSummary } from "./format";

function session(id: string, current = false): Session {
  return {
    id,
    method: "password",
    browser: "Chrome 120",
    os: "macOS",
    clientAddress: "203.0.113.7",
    startedAt: "2026-11-28T09:00:00Z",
    lastActiveAt: "2026-11-28T10:00:00Z",
    current,
  };
}

describe("deviceText", () => {
  it.each([
    [{ browser: "Chrome 120", os: "macOS" }, "Chrome 120 on macOS"],
    [{ browser: "Firefox 133", os: null }, "Firefox 133"],
    [{ browser: null, os: "Linux" }, "Unknown browser on Linux"],
    [{ browser: null, os: null }, "Unknown browser"],
    [{ browser: " ", os: "" }, "Unknown browser"],
  ])("words %j as %s", (fields, text) => {
    expect(deviceText(fields)).toBe(text);
  });
});

describe("currentFirst", () => {
  it("puts this browser's session first and keeps the others in order", () => {
    const list = [session("a"), session("b", true), session("c")];
    expect(currentFirst(list).map((s) => s.id)).toEqual(["b", "a", "c"]);
  });
});

describe("listSummary", () => {
  it.each([
    [[session("a", true)], "Only this browser."],
    [[session("a", true), session("b")], "2 sessions, this browser's first."],
    [[session("a")], "1 session."],
    [[session("a"), session("b")], "2 sessions."],
  ])("sums %j up as %s", (list, text) => {
    expect(listSummary(list)).toBe(text);
  });
});

describe("endOthersText", () => {
  it("speaks of one other session, or of all of them", () => {
    expect(endOthersText(1)).toBe("The other session will be signed out: it goes to the sign-in page at its next step.");
    expect(endOthersText(3)).toBe(
      "All 3 other sessions will be signed out: each goes to the sign-in page at its next step.",
    );
  });
});

describe("endedText", () => {
  it.each([
    [0, "No other session was signed in."],
    [1, "Signed out 1 other session."],
    [3, "Signed out 3 other sessions."],
  ])("says %i as %s", (ended, text) => {
    expect(endedText(ended)).toBe(text);
  });
});

describe("isMobile", () => {
  it.each([
    ["iOS 17", true],
    ["Android 14", true],
    ["iPadOS", true],
    ["macOS", false],
    ["Windows 10", false],
    [null, false],
  ])("%s: %s", (os, mobile) => {
    expect(isMobile(os)).toBe(mobile);
  });
});

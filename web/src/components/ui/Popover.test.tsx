/**
 * The popover menu's keyboard and pointer behaviour (SPEC 1 "popovers"; the WAI-ARIA menu
 * button pattern), rendered alone in happy-dom.
 */
import { render, screen, waitFor } from "@testing-library/preact";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

import { MenuItem, MenuSeparator, PopoverMenu } from "./Popover";

function renderMenu() {
  const chosen = vi.fn<(item: string) => void>();
  const user = userEvent.setup();
  render(
    <div>
      <p>Some text</p>
      <PopoverMenu trigger="Actions" label="Actions menu">
        <MenuItem onSelect={() => chosen("Copy")}>Copy</MenuItem>
        <MenuItem onSelect={() => chosen("Rename")}>Rename</MenuItem>
        <MenuSeparator />
        <MenuItem onSelect={() => chosen("Delete")}>Delete</MenuItem>
      </PopoverMenu>
      <button type="button">Elsewhere</button>
    </div>,
  );
  return { user, chosen, button: screen.getByRole("button", { name: "Actions" }) };
}

const item = (name: string) => screen.getByRole("menuitem", { name });
const menu = () => screen.queryByRole("menu", { name: "Actions menu" });

async function expectFocused(element: () => HTMLElement) {
  await waitFor(() => expect(document.activeElement).toBe(element()));
}

describe("PopoverMenu", () => {
  it("is a closed menu button until opened", () => {
    const { button } = renderMenu();
    expect(button.getAttribute("aria-haspopup")).toBe("menu");
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(menu()).toBeNull();
  });

  it("opens on Enter with the first item focused; the arrows wrap, Home and End jump", async () => {
    const { user, button } = renderMenu();
    button.focus();
    await user.keyboard("{Enter}");
    expect(await screen.findByRole("menu", { name: "Actions menu" })).toBeDefined();
    expect(button.getAttribute("aria-expanded")).toBe("true");
    expect(screen.getAllByRole("menuitem").map((i) => i.textContent)).toEqual(["Copy", "Rename", "Delete"]);
    await expectFocused(() => item("Copy"));

    await user.keyboard("{ArrowDown}");
    await expectFocused(() => item("Rename"));
    await user.keyboard("{ArrowDown}"); // past the separator
    await expectFocused(() => item("Delete"));
    await user.keyboard("{ArrowDown}"); // wraps to the first
    await expectFocused(() => item("Copy"));
    await user.keyboard("{ArrowUp}"); // wraps to the last
    await expectFocused(() => item("Delete"));
    await user.keyboard("{Home}");
    await expectFocused(() => item("Copy"));
    await user.keyboard("{End}");
    await expectFocused(() => item("Delete"));
  });

  it("opens on Arrow Down on the first item and on Arrow Up on the last", async () => {
    const { user, button } = renderMenu();
    button.focus();
    await user.keyboard("{ArrowDown}");
    await expectFocused(() => item("Copy"));
    await user.keyboard("{Escape}");
    await user.keyboard("{ArrowUp}");
    await expectFocused(() => item("Delete"));
  });

  it.each([
    ["Enter", "{Enter}"],
    ["Space", " "],
  ])("activates the focused item with %s, closes and focuses the button", async (_key, keys) => {
    const { user, button, chosen } = renderMenu();
    button.focus();
    await user.keyboard("{Enter}");
    await expectFocused(() => item("Copy"));
    await user.keyboard("{ArrowDown}");
    await user.keyboard(keys);
    expect(chosen.mock.calls).toEqual([["Rename"]]);
    await waitFor(() => expect(menu()).toBeNull());
    expect(document.activeElement).toBe(button);
    expect(button.getAttribute("aria-expanded")).toBe("false");
  });

  it("closes on Escape and gives the focus back to the button", async () => {
    const { user, button, chosen } = renderMenu();
    button.focus();
    await user.keyboard(" ");
    await expectFocused(() => item("Copy"));
    await user.keyboard("{Escape}");
    await waitFor(() => expect(menu()).toBeNull());
    expect(document.activeElement).toBe(button);
    expect(chosen).not.toHaveBeenCalled();
  });

  it("closes on Tab, the focus moving on to what follows", async () => {
    const { user, button } = renderMenu();
    button.focus();
    await user.keyboard("{Enter}");
    await expectFocused(() => item("Copy"));
    await user.tab();
    await waitFor(() => expect(menu()).toBeNull());
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Elsewhere" }));
  });

  it("opens and closes with clicks; a click outside closes it and focuses the button", async () => {
    const { user, button, chosen } = renderMenu();
    await user.click(button);
    await expectFocused(() => item("Copy"));
    await user.click(button);
    await waitFor(() => expect(menu()).toBeNull());

    await user.click(button);
    await expectFocused(() => item("Copy"));
    await user.click(screen.getByText("Some text"));
    await waitFor(() => expect(menu()).toBeNull());
    expect(document.activeElement).toBe(button);

    await user.click(button);
    await user.click(await screen.findByRole("menuitem", { name: "Delete" }));
    expect(chosen.mock.calls).toEqual([["Delete"]]);
    await waitFor(() => expect(menu()).toBeNull());
    expect(document.activeElement).toBe(button);
  });

  it("leaves the focus where a click outside put it", async () => {
    const { user, button } = renderMenu();
    await user.click(button);
    await expectFocused(() => item("Copy"));
    const elsewhere = screen.getByRole("button", { name: "Elsewhere" });
    await user.click(elsewhere);
    await waitFor(() => expect(menu()).toBeNull());
    expect(document.activeElement).toBe(elsewhere);
  });
});

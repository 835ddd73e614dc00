import { describe, expect, it } from "vitest";
import { currentProject, type Principal } from "@/lib/access/roles";

const user = (memberships: Record<string, "viewer" | "reviewer" | "admin">): Principal => ({
  kind: "user",
  id: "u",
  name: "u",
  memberships: Object.fromEntries(Object.entries(memberships).map(([p, role]) => [p, { role, environments: [] }])),
});

describe("the current project (user menu, uploads from the browser)", () => {
  it("is the chosen one when the user belongs to it", () => {
    expect(currentProject(user({ default: "admin", ops: "viewer" }), "ops")).toBe("ops");
  });
  it("falls back to the default write project, not to a project the user left", () => {
    expect(currentProject(user({ default: "reviewer", ops: "reviewer" }), "gone")).toBe("default");
    expect(currentProject(user({ beta: "reviewer", alpha: "viewer" }), null)).toBe("beta");
  });
  it("is a project the user belongs to even when they can write to none", () => {
    expect(currentProject(user({ zeta: "viewer", eta: "viewer" }), undefined)).toBe("eta");
  });
  it("is null for everyone but a member", () => {
    expect(currentProject({ kind: "open" }, "default")).toBeNull();
    expect(currentProject(user({}), "default")).toBeNull();
  });
});

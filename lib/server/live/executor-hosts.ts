import "server-only";
/**
 * Which hosts an executor may be (docs/live-actions.md, "Executor hosts"). A project admin
 * types the executor's URL and the server then POSTs to it, so an unchecked URL lets an admin
 * make the server reach what only it can reach: its own loopback services, the cloud's
 * metadata endpoint, the private network. Refused, unless the deployment allows them in
 * RETRACE_EXECUTOR_HOSTS (a comma list of `host`, `host:port` or CIDR):
 *
 * - unspecified, loopback, link-local, cloud metadata, private, shared (CGNAT), multicast and
 *   reserved addresses, IPv4 ones also inside IPv6 (mapped, NAT64, 6to4);
 * - an IPv4 address spelled other than as four decimal numbers (`2130706433`, `0x7f.1`,
 *   `0177.0.0.1`): the URL parser reads them as 127.0.0.1, a reader of the form may not.
 *
 * The check runs when an executor is saved and again on every request, on the addresses the
 * host resolves to then; the request connects to the address that was checked (no second
 * lookup), so a name that resolves to a public address at save time and to a private one
 * later (DNS rebinding) is refused at the request.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP, isIPv4 } from "node:net";

/** The parsed RETRACE_EXECUTOR_HOSTS. */
export interface ExecutorHosts {
  /** host names and IP addresses (IPv6 in brackets, as URL.hostname has them), each with a port or any */
  hosts: { host: string; port: number | null }[];
  /** CIDR entries */
  ranges: BlockList;
}

/** An address a host resolves to. */
export interface Resolved {
  address: string;
  family: 4 | 6;
}

export type Resolve = (host: string) => Promise<Resolved[]>;

const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

const bare = (host: string) => host.replace(/^\[(.*)\]$/, "$1").toLowerCase();

/** `[::1]` for an IPv6 address, the host lower-cased otherwise (URL.hostname's spelling). */
function hostnameOf(host: string): string {
  const h = bare(host);
  if (isIP(h) === 6) return new URL(`http://[${h}]`).hostname;
  if (isIP(h) === 4) return h;
  return new URL(`http://${h}`).hostname;
}

/** RETRACE_EXECUTOR_HOSTS parsed; an entry that is none of host, host:port, CIDR is an error naming it. */
export function parseExecutorHosts(raw: string | undefined): ExecutorHosts {
  const out: ExecutorHosts = { hosts: [], ranges: new BlockList() };
  for (const entry of (raw ?? "").split(",").map((s) => s.trim())) {
    if (entry === "") continue;
    const bad = () => new Error(`RETRACE_EXECUTOR_HOSTS: "${entry}" is not a host, host:port or CIDR (10.0.0.0/8, fd00::/8)`);
    const cidr = /^\[?([0-9A-Fa-f:.]+)\]?\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const family = isIP(cidr[1]);
      const prefix = Number(cidr[2]);
      if (family === 0 || prefix > (family === 4 ? 32 : 128)) throw bad();
      out.ranges.addSubnet(cidr[1], prefix, family === 4 ? "ipv4" : "ipv6");
      continue;
    }
    // [v6]:port, [v6], a bare v6, host:port, host
    const m =
      /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/.exec(entry) ??
      (isIP(entry) === 6 ? [entry, entry, undefined] : null) ??
      /^([A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(entry);
    if (!m) throw bad();
    const port = m[2] === undefined ? null : Number(m[2]);
    if (port !== null && (port < 1 || port > 65535)) throw bad();
    let host: string;
    try {
      host = hostnameOf(m[1]);
    } catch {
      throw bad();
    }
    out.hosts.push({ host, port });
  }
  return out;
}

const REFUSED: [string, [string, number, "ipv4" | "ipv6"][]][] = [
  [
    "cloud metadata",
    [
      ["169.254.169.254", 32, "ipv4"],
      ["fd00:ec2::254", 128, "ipv6"],
      ["100.100.100.200", 32, "ipv4"],
    ],
  ],
  [
    "unspecified",
    [
      ["0.0.0.0", 8, "ipv4"],
      ["::", 128, "ipv6"],
    ],
  ],
  [
    "loopback",
    [
      ["127.0.0.0", 8, "ipv4"],
      ["::1", 128, "ipv6"],
    ],
  ],
  [
    "link-local",
    [
      ["169.254.0.0", 16, "ipv4"],
      ["fe80::", 10, "ipv6"],
    ],
  ],
  [
    "private",
    [
      ["10.0.0.0", 8, "ipv4"],
      ["172.16.0.0", 12, "ipv4"],
      ["192.168.0.0", 16, "ipv4"],
      ["100.64.0.0", 10, "ipv4"],
      ["fc00::", 7, "ipv6"],
    ],
  ],
  [
    "reserved",
    [
      ["192.0.0.0", 24, "ipv4"],
      ["192.0.2.0", 24, "ipv4"],
      ["198.18.0.0", 15, "ipv4"],
      ["198.51.100.0", 24, "ipv4"],
      ["203.0.113.0", 24, "ipv4"],
      ["224.0.0.0", 4, "ipv4"],
      ["240.0.0.0", 4, "ipv4"],
      ["ff00::", 8, "ipv6"],
      ["100::", 64, "ipv6"],
      ["2001:db8::", 32, "ipv6"],
    ],
  ],
];
const REFUSED_LISTS = REFUSED.map(([kind, subnets]) => {
  const list = new BlockList();
  for (const [a, p, t] of subnets) list.addSubnet(a, p, t);
  return [kind, list] as const;
});

/** The IPv4 address inside an IPv6 one (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
function embeddedIPv4(v6: string): string | null {
  const words = expandIPv6(v6);
  if (!words) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (zeros(0, 5) && words[5] === 0xffff) return v4(words[6], words[7]);
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return v4(words[6], words[7]);
  if (words[0] === 0x2002) return v4(words[1], words[2]);
  return null;
}

function expandIPv6(v6: string): number[] | null {
  let s = v6.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const p = dotted[1].split(".").map(Number);
    s = s.slice(0, -dotted[1].length) + `${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
  }
  const [head, tail] = s.split("::");
  const hw = head ? head.split(":") : [];
  const tw = tail === undefined ? [] : tail ? tail.split(":") : [];
  const fill = tail === undefined ? 0 : 8 - hw.length - tw.length;
  const words = [...hw, ...Array<string>(Math.max(fill, 0)).fill("0"), ...tw].map((w) => parseInt(w, 16));
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : null;
}

/** What kind of address an executor may not be (`loopback`, `private`, …), or null for a public one. */
export function refusedKind(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return "unparsable";
  if (family === 6) {
    const inner = embeddedIPv4(address);
    if (inner) return refusedKind(inner);
  }
  for (const [kind, list] of REFUSED_LISTS) if (list.check(address, family === 4 ? "ipv4" : "ipv6")) return kind;
  return null;
}

const portOf = (u: URL) => (u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80);

const NONE: ExecutorHosts = { hosts: [], ranges: new BlockList() };

const hostAllowed = (allow: ExecutorHosts, host: string, port: number) =>
  allow.hosts.some((h) => h.host === host && (h.port === null || h.port === port));

function addressAllowed(allow: ExecutorHosts, address: string, port: number): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (hostAllowed(allow, family === 6 ? `[${address.toLowerCase()}]` : address, port)) return true;
  if (family === 6 && hostAllowed(allow, hostnameOf(address), port)) return true;
  return allow.ranges.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The host as typed in the URL text (before the URL parser rewrote it), lower-cased. */
function typedHost(url: string): string | null {
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:[/\\]{2}([^/?#\\]*)/.exec(url.trim())?.[1];
  if (authority === undefined) return null;
  const host = authority.replace(/^.*@/, "");
  return (host.startsWith("[") ? host.replace(/(\]).*$/, "$1") : host.replace(/:\d*$/, "")).toLowerCase();
}

const HINT = 'allow it in RETRACE_EXECUTOR_HOSTS if this deployment means to (docs/live-actions.md, "Executor hosts")';

/** Why the server may not reach this URL's host, or null. `url` is the text as typed; `u` its parse. */
export function spellingProblem(url: string, u: URL): string | null {
  const typed = typedHost(url);
  if (isIPv4(u.hostname) && typed !== null && typed !== u.hostname && typed !== `${u.hostname}.`)
    return `write the endpoint's IP address as four decimal numbers: "${typed}" is read as ${u.hostname}`;
  return null;
}

export class ExecutorHostRefused extends Error {}

/**
 * The address a request to `u` connects to: the first the host resolves to, once every one
 * of them is allowed (a name with one public and one private address is refused: the
 * connection could take either). Throws ExecutorHostRefused with words for the form.
 */
export async function checkedAddress(u: URL, allow: ExecutorHosts = NONE, resolve: Resolve = systemResolve): Promise<Resolved> {
  const host = bare(u.hostname);
  const port = portOf(u);
  const literal = isIP(host);
  let addresses: Resolved[];
  if (literal !== 0) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      throw new ExecutorHostRefused(`the endpoint's host "${host}" could not be resolved${typeof code === "string" ? ` (${code})` : ""}`);
    }
    if (addresses.length === 0) throw new ExecutorHostRefused(`the endpoint's host "${host}" resolves to no address`);
  }
  // a name the deployment allows by name is trusted whatever it resolves to
  if (literal === 0 && hostAllowed(allow, u.hostname, port)) return addresses[0];
  for (const a of addresses) {
    const kind = refusedKind(a.address);
    if (kind !== null && !addressAllowed(allow, a.address, port)) {
      const what = literal !== 0 ? `${a.address}` : `"${host}" resolves to ${a.address},`;
      throw new ExecutorHostRefused(
        `the endpoint ${what} ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} address the server may not reach; ${HINT}`,
      );
    }
  }
  return addresses[0];
}

/** Save time: the spelling and the host's addresses now; null when the server may reach it. */
export async function executorHostProblem(
  url: string,
  allow: ExecutorHosts = NONE,
  resolve: Resolve = systemResolve,
): Promise<string | null> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "the endpoint must be an http:// or https:// URL";
  }
  const spelled = spellingProblem(url, u);
  if (spelled) return spelled;
  try {
    await checkedAddress(u, allow, resolve);
    return null;
  } catch (e) {
    if (e instanceof ExecutorHostRefused) return e.message;
    throw e;
  }
}

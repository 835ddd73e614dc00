/**
 * A small persistent string-keyed map: `set` returns a new map and leaves the old one as
 * it was, sharing all but one path with it. The fold keeps every approval and every call
 * id of a run for as long as the run lasts, and the replay keeps old fold states as
 * snapshots, so copying one whole Map per change would be quadratic. It is a hash trie
 * (32 slots per node, 5 bits of the key's hash per level) with small leaves: a change
 * copies one node per level and one leaf of at most LEAF_MAX entries.
 */
const BITS = 5;
const SLOTS = 1 << BITS;
const MASK = SLOTS - 1;
const LEAF_MAX = 8;
/** Below this depth the hash has no bits left: leaves grow without splitting. */
const MAX_DEPTH = Math.ceil(32 / BITS);

function hashOf(key: string): number {
  // FNV-1a over the UTF-16 code units: cheap, and spreads call and approval ids well.
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

type Entry<V> = readonly [string, V];
/** A leaf: entries in the order their keys were first set. */
type Leaf<V> = { readonly leaf: readonly Entry<V>[] };
type Slot<V> = Leaf<V> | TrieNode<V> | undefined;
type TrieNode<V> = readonly Slot<V>[];

const slotOf = (hash: number, depth: number) => (hash >>> (depth * BITS)) & MASK;
const isLeaf = <V>(s: Leaf<V> | TrieNode<V>): s is Leaf<V> => !Array.isArray(s);

function indexIn<V>(entries: readonly Entry<V>[], key: string): number {
  for (let i = 0; i < entries.length; i++) if (entries[i][0] === key) return i;
  return -1;
}

/** The node with `entries` placed one level down (a leaf that outgrew LEAF_MAX). */
function split<V>(entries: readonly Entry<V>[], depth: number): TrieNode<V> {
  const node: Slot<V>[] = new Array<Slot<V>>(SLOTS).fill(undefined);
  for (const e of entries) {
    const i = slotOf(hashOf(e[0]), depth);
    const s = node[i] as Leaf<V> | undefined;
    node[i] = { leaf: s ? [...s.leaf, e] : [e] };
  }
  for (let i = 0; i < SLOTS; i++) {
    const s = node[i] as Leaf<V> | undefined;
    if (s && s.leaf.length > LEAF_MAX && depth + 1 < MAX_DEPTH) node[i] = split(s.leaf, depth + 1);
  }
  return node;
}

export class PMap<V> {
  static empty<V>(): PMap<V> {
    return EMPTY as PMap<V>;
  }

  static from<V>(entries: Iterable<readonly [string, V]>): PMap<V> {
    let m = PMap.empty<V>();
    for (const [k, v] of entries) m = m.set(k, v);
    return m;
  }

  /** Use `PMap.empty()` or `PMap.from()`. */
  constructor(
    private readonly root: TrieNode<V>,
    readonly size: number,
  ) {}

  get(key: string): V | undefined {
    const h = hashOf(key);
    let node = this.root;
    for (let depth = 0; ; depth++) {
      const s = node[slotOf(h, depth)];
      if (s === undefined) return undefined;
      if (isLeaf(s)) {
        const i = indexIn(s.leaf, key);
        return i < 0 ? undefined : s.leaf[i][1];
      }
      node = s;
    }
  }

  has(key: string): boolean {
    const h = hashOf(key);
    let node = this.root;
    for (let depth = 0; ; depth++) {
      const s = node[slotOf(h, depth)];
      if (s === undefined) return false;
      if (isLeaf(s)) return indexIn(s.leaf, key) >= 0;
      node = s;
    }
  }

  set(key: string, value: V): PMap<V> {
    const h = hashOf(key);
    // Walk down to the leaf slot, remembering the nodes passed, then copy them bottom-up.
    const path: TrieNode<V>[] = [];
    let node = this.root;
    let depth = 0;
    let s = node[slotOf(h, 0)];
    while (s !== undefined && !isLeaf(s)) {
      path.push(node);
      node = s;
      s = node[slotOf(h, ++depth)];
    }
    let added = true;
    let next: Leaf<V> | TrieNode<V>;
    if (s === undefined) next = { leaf: [[key, value]] };
    else {
      const i = indexIn(s.leaf, key);
      if (i >= 0) {
        if (s.leaf[i][1] === value) return this;
        added = false;
        const leaf = s.leaf.slice();
        leaf[i] = [key, value];
        next = { leaf };
      } else {
        const leaf = [...s.leaf, [key, value] as const];
        next = leaf.length > LEAF_MAX && depth + 1 < MAX_DEPTH ? split(leaf, depth + 1) : { leaf };
      }
    }
    for (;;) {
      const copy = node.slice();
      copy[slotOf(h, depth)] = next;
      next = copy;
      if (depth === 0) break;
      node = path[--depth];
    }
    return new PMap(next, this.size + (added ? 1 : 0));
  }

  delete(key: string): PMap<V> {
    const h = hashOf(key);
    const drop = (node: TrieNode<V>, depth: number): TrieNode<V> => {
      const at = slotOf(h, depth);
      const s = node[at];
      if (s === undefined) return node;
      let next: Slot<V>;
      if (!isLeaf(s)) {
        const child = drop(s, depth + 1);
        if (child === s) return node;
        next = child;
      } else {
        const i = indexIn(s.leaf, key);
        if (i < 0) return node;
        next = s.leaf.length === 1 ? undefined : { leaf: s.leaf.filter((_, j) => j !== i) };
      }
      const copy = node.slice();
      copy[at] = next;
      return copy;
    };
    const root = drop(this.root, 0);
    return root === this.root ? this : new PMap(root, this.size - 1);
  }

  /** Entries in an order that depends only on the keys and the order they were first set. */
  *entries(): IterableIterator<[string, V]> {
    const walk = function* (node: TrieNode<V>): Generator<[string, V]> {
      for (const s of node) {
        if (s === undefined) continue;
        if (isLeaf(s)) for (const [k, v] of s.leaf) yield [k, v];
        else yield* walk(s);
      }
    };
    yield* walk(this.root);
  }
}

const EMPTY = new PMap<unknown>(new Array<undefined>(SLOTS).fill(undefined), 0);

/**
 * A set of field paths (structured-merge-diff's fieldpath.Set) stored as a trie keyed by path elements
 * (path-element.ts). A node is a member when the path ending at it is in the set; its children hold longer paths.
 * The trie maps one-to-one onto FieldsV1: a member without children is `{}`, a member with children carries `".": {}`.
 */
import { isValidElement, pathToString } from './path-element.js';
import { isObjectValue } from './schema.js';

/**
 * The children of every node that has none: most nodes are leaves, and a Map each made a create's field set (a few
 * hundred nodes for a CR with keyed lists) markedly slower. Shared, so it refuses writes; nodes get their own Map
 * through setChild().
 */
class NoChildren extends Map<string, FieldSet> {
  override set(): this {
    throw new Error('FieldSet: a leaf has no children map of its own; use setChild()');
  }
}
const NO_CHILDREN: Map<string, FieldSet> = new NoChildren();

export class FieldSet {
  /** Whether the path leading to this node is itself in the set (meaningless at the root). */
  member = false;
  /** The child nodes by path element (read-only outside this class: add through child() or setChild()). */
  children: Map<string, FieldSet> = NO_CHILDREN;

  /** The child node for `element`, created when missing. */
  child(element: string): FieldSet {
    let c = this.children.get(element);
    if (!c) {
      c = new FieldSet();
      this.setChild(element, c);
    }
    return c;
  }

  /** Sets the child node for `element`. */
  setChild(element: string, node: FieldSet): void {
    if (this.children === NO_CHILDREN) this.children = new Map();
    this.children.set(element, node);
  }

  /** Adds one path. */
  insert(path: readonly string[]): void {
    let node: FieldSet = this;
    for (const e of path) node = node.child(e);
    if (path.length > 0) node.member = true;
  }

  /** Whether `path` is a member. */
  has(path: readonly string[]): boolean {
    let node: FieldSet | undefined = this;
    for (const e of path) {
      node = node.children.get(e);
      if (!node) return false;
    }
    return path.length > 0 && node.member;
  }

  /** The sub-trie below `path` (undefined when nothing is there). */
  at(path: readonly string[]): FieldSet | undefined {
    let node: FieldSet | undefined = this;
    for (const e of path) {
      node = node.children.get(e);
      if (!node) return undefined;
    }
    return node;
  }

  isEmpty(): boolean {
    return this.children.size === 0;
  }

  /** Every member path, depth first in insertion order. */
  paths(): string[][] {
    const out: string[][] = [];
    const walk = (node: FieldSet, prefix: string[]) => {
      for (const [e, c] of node.children) {
        const p = [...prefix, e];
        if (c.member) out.push(p);
        walk(c, p);
      }
    };
    walk(this, []);
    return out;
  }

  /** Member paths as structured-merge-diff prints them, sorted. */
  pathStrings(): string[] {
    return this.paths().map(pathToString).sort();
  }

  clone(): FieldSet {
    const copy = new FieldSet();
    copy.member = this.member;
    for (const [e, c] of this.children) copy.setChild(e, c.clone());
    return copy;
  }

  /** A new set with the members of both. */
  union(other: FieldSet): FieldSet {
    const out = this.clone();
    mergeInto(out, other);
    return out;
  }

  /** A new set with the members of this one that are not members of `other` (children are compared recursively). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [e, c] of this.children) {
      const o = other.children.get(e);
      const d = o ? c.difference(o) : c.clone();
      d.member = c.member && !(o?.member ?? false);
      if (d.member || !d.isEmpty()) out.setChild(e, d);
    }
    return out;
  }

  /**
   * A new set without anything at or below a member of `other` (RecursiveDifference): used to drop whole subtrees
   * such as the fields an endpoint resets.
   */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [e, c] of this.children) {
      const o = other.children.get(e);
      if (o?.member) continue;
      const d = o ? c.recursiveDifference(o) : c.clone();
      d.member = c.member;
      if (d.member || !d.isEmpty()) out.setChild(e, d);
    }
    return out;
  }

  /** A new set with the members present in both. */
  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [e, c] of this.children) {
      const o = other.children.get(e);
      if (!o) continue;
      const i = c.intersection(o);
      i.member = c.member && o.member;
      if (i.member || !i.isEmpty()) out.setChild(e, i);
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.member !== other.member || this.children.size !== other.children.size) return false;
    for (const [e, c] of this.children) {
      const o = other.children.get(e);
      if (!o || !c.equals(o)) return false;
    }
    return true;
  }

  /** The FieldsV1 JSON trie: keys in sorted order, as kube-apiserver serializes them. */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const n = this.children.size;
    if (n === 0) return out;
    if (this.member) out['.'] = {};
    if (n === 1) {
      for (const [e, c] of this.children) out[e] = c.toFieldsV1();
      return out;
    }
    const keys = Array.from(this.children.keys()).sort();
    for (const e of keys) out[e] = this.children.get(e)!.toFieldsV1();
    return out;
  }

  /**
   * Decodes a FieldsV1 trie. Throws an Error naming the problem for anything that is not one: a non-object node, an
   * unknown key prefix, or a `"."` whose value is not `{}`.
   */
  static fromFieldsV1(json: unknown): FieldSet {
    const root = new FieldSet();
    decodeInto(root, json, true);
    return root;
  }
}

function mergeInto(target: FieldSet, source: FieldSet): void {
  if (source.member) target.member = true;
  for (const [e, c] of source.children) mergeInto(target.child(e), c);
}

function decodeInto(node: FieldSet, json: unknown, root: boolean): void {
  if (!isObjectValue(json)) throw new Error('expected an object');
  const keys = Object.keys(json);
  if (!root && keys.length === 0) node.member = true;
  for (const key of keys) {
    const value = json[key];
    if (key === '.') {
      if (root || !isObjectValue(value) || Object.keys(value).length > 0) throw new Error('"." must map to {}');
      node.member = true;
      continue;
    }
    if (!isValidElement(key)) throw new Error(`unexpected key ${JSON.stringify(key)}`);
    decodeInto(node.child(key), value, false);
  }
}

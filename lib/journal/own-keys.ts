/**
 * Payload keys are data, whatever their name: `__proto__`, `constructor` and `prototype`
 * included (a payload is attacker-controlled). `o[key] = v` with key `__proto__` on an
 * object that lacks it calls the inherited setter (the key is lost, the object's prototype
 * changes); building objects from payload keys goes through `setOwn`, as JSON.parse does.
 */

/** Creates or overwrites an own, enumerable data property (never a prototype's setter). */
export function setOwn<T>(o: { [key: string]: T }, key: string, value: T): void {
  Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Whether `key` is an own property of `o` (never an inherited one such as `constructor`). */
export function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** `o[key]` when it is an own property, else undefined (`{}.constructor` is not data). */
export function ownValue(o: object, key: string): unknown {
  return hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

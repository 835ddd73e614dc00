/**
 * Payload keys are data, whatever their name: `__proto__`, `constructor` and `prototype`
 * included (a payload is attacker-controlled). `o[key] = v` with key `__proto__` on an
 * object that lacks it calls the inherited setter (the key is lost, the object's prototype
 * changes); building objects from payload keys goes through `setOwn`, as JSON.parse does.
 */

/**
 * Creates or overwrites an own, enumerable data property (never a prototype's setter).
 * Only `__proto__` is an accessor on Object.prototype; every other name (`constructor`,
 * `prototype` included: inherited data properties) is made own by plain assignment, which
 * keeps V8's fast object shapes (defineProperty for every key cost 7% of an import).
 */
export function setOwn<T>(o: { [key: string]: T }, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

/** Whether `key` is an own property of `o` (never an inherited one such as `constructor`). */
export function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** `o[key]` when it is an own property, else undefined (`{}.constructor` is not data). */
export function ownValue(o: object, key: string): unknown {
  return hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

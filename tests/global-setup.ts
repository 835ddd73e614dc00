// Filled in by the storage tests: nothing global is needed for pure-core tests.
export default async function setup() {}

/**
 * `compute` with its results kept, at most `maxEntries` of them: the cache is emptied when full (a
 * hot path sees the same inputs again and again; clearing is cheaper than tracking which is oldest).
 * Only for pure functions: a kept result is returned as it was computed.
 */
export function boundedMemo<K, V>(maxEntries: number, compute: (key: K) => V): (key: K) => V {
  const kept = new Map<K, V>();
  return (key) => {
    const known = kept.get(key);
    // `has` only for an undefined result, so a cached null or undefined is not computed again.
    if (known !== undefined || kept.has(key)) return known as V;
    const value = compute(key);
    if (kept.size >= maxEntries) kept.clear();
    kept.set(key, value);
    return value;
  };
}

/**
 * A function that gives one value per key object, made by `create` on first use and dropped with the
 * key (a WeakMap). The storage layer keeps several things per connection this way: its prepared
 * transaction statements, its group committer, its row cache, its quota memory.
 */
export function oncePer<K extends object, V>(create: (key: K) => V): (key: K) => V {
  const values = new WeakMap<K, V>();
  return (key) => {
    let value = values.get(key);
    if (value === undefined) {
      value = create(key);
      values.set(key, value);
    }
    return value;
  };
}

/**
 * A function that makes a row's object, keyed by `columns`, from the array of its values that a
 * statement prepared with Db.prepareArrays read, in the same order.
 *
 * Why: a driver builds a row object key by key, and V8 turns an object given more than about a
 * dozen keys so into a dictionary (a hash table), slower to build and to read; with better-sqlite3
 * it also looks up each column's name as it builds each row. A patient's row has 95 columns. An
 * object literal with its keys written out is a fast object of one shape, so its function is made
 * once per column list, from the program's own constants (never from a request): a patient's row
 * read by id took 37 µs as a driver's object and 22 µs as an array made into an object this way
 * (docs/benchmarks.md, issue 43).
 */
export function rowBuilder<R>(columns: readonly string[]): (values: readonly unknown[]) => R {
  // Compiled at the first row, not when the module loads: compiling a literal of 95 keys takes
  // about 0.4 ms, which a desk command that reads no such row should not pay at its start.
  let build: ((values: readonly unknown[]) => R) | undefined;
  return (values) => (build ??= compileRowLiteral<R>(columns))(values);
}

function compileRowLiteral<R>(columns: readonly string[]): (values: readonly unknown[]) => R {
  const properties = columns.map((column, i) => `${JSON.stringify(column)}: values[${i}]`).join(', ');
  // The literal is made of constant column names (above), never of a request.
  return new Function('values', `return { ${properties} };`) as (values: readonly unknown[]) => R;
}

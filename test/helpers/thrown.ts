/** The error `run` throws, or undefined when it throws none: for a test that looks at the error's fields. */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

// Loaded into a program under test with NODE_OPTIONS=--require (test/cli/desk-start.test.ts):
// writes the names of Node's built-in modules the process loaded, one a line, to the file
// CLINIC_TEST_LOADED_MODULES names, when the process exits.
process.on('exit', () => {
  const names = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice(13));
  require('node:fs').writeFileSync(process.env.CLINIC_TEST_LOADED_MODULES, `${names.join('\n')}\n`);
});

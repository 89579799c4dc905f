// The desk's command groups as src/cli/program.ts declares them (COMMAND_GROUPS: each module of
// commands, loaded by import() when one of its top-level names is typed), and the two ways
// scripts/package.mjs rewrites that table for a bundle of the executable: the server's, which
// imports every group at its start, and a desk command's own, which holds one group only.
import { readFileSync } from 'node:fs';

/** A group's loader, which both rewrites replace: `async () => (await import('./commands/appointment.js')).registerAppointmentCommands`. */
const GROUP_LOADER = /async \(\) => \(await import\('\.\/commands\/([\w-]+)\.js'\)\)\.(\w+)/g;
/** One entry of COMMAND_GROUPS: its top-level names, then its loader: `[['book-appointment', 'appointment'], <loader>]`. */
const GROUP_ENTRY = new RegExp(String.raw`\[\[([^\]]*)\],\s*${GROUP_LOADER.source}\]`, 'g');
const PROGRAM_MODULE = /[\\/]src[\\/]cli[\\/]program\.ts$/;

/**
 * The command groups of program.ts's `source`, in its order: each with the module of commands
 * that registers it (`appointment` for src/cli/commands/appointment.ts) and its top-level names.
 * Throws when the table is no longer written as this file reads it, so that a bundle is never
 * built from a misread table.
 */
export function commandGroupsOf(source) {
  const groups = [...source.matchAll(GROUP_ENTRY)].map(([, names, module]) => ({
    module,
    names: [...names.matchAll(/'([\w-]+)'/g)].map(([, name]) => name),
  }));
  // Every import() of the module is a group's loader inside a group's entry, or the table was misread.
  const imports = [...source.matchAll(/\bimport\(/g)].length;
  const loaders = [...source.matchAll(GROUP_LOADER)].length;
  if (groups.length === 0 || groups.length !== loaders || imports !== loaders || groups.some(({ names }) => names.length === 0)) {
    throw new Error('src/cli/program.ts no longer declares its command groups as scripts/command-groups.mjs reads them');
  }
  return groups;
}

/**
 * program.ts with every command group imported at its start instead of with import() when typed
 * (the server's bundle: scripts/package.mjs says why). Each group's loader becomes a static
 * import of its register function.
 */
export function withEveryGroupImported(source) {
  commandGroupsOf(source);
  const imports = [];
  const eager = source.replace(GROUP_LOADER, (_, module, register) => {
    imports.push(`import { ${register} } from './commands/${module}.js';`);
    return `async () => ${register}`;
  });
  return `${imports.join('\n')}\n${eager}`;
}

/**
 * program.ts with the groups of `module` only: the others' loaders fail, so esbuild leaves their
 * modules (and whatever only they use) out of the bundle. A desk command's bundle is chosen by
 * the executable's loader (src/sea/loader.ts) from the command's first word, and buildProgram
 * loads that word's group only, so another group's loader runs only if the two disagree, which
 * is the program's fault and says so.
 */
export function withOnlyGroup(source, module) {
  if (!commandGroupsOf(source).some((group) => group.module === module)) {
    throw new Error(`src/cli/program.ts has no command group in ./commands/${module}.js`);
  }
  return source.replace(GROUP_LOADER, (loader, other) =>
    other === module
      ? loader
      : `async () => { throw new Error(${JSON.stringify(`the commands of ./commands/${other}.js are not in the bundle of ./commands/${module}.js (src/sea/loader.ts chooses a bundle by the command's first word)`)}); }`,
  );
}

/** An esbuild plugin that loads src/cli/program.ts as `rewrite` makes it from its source. */
export function rewritingProgram(name, rewrite) {
  return {
    name,
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: PROGRAM_MODULE }, (args) => ({ contents: rewrite(readFileSync(args.path, 'utf8')), loader: 'ts' }));
    },
  };
}

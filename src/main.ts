import { runCli } from './cli/program.js';
import { processIo } from './cli/io.js';
import { provideDeskCommands } from './cli/desk-command-runner.js';
import { runDeskPcCommand } from './cli/desk-pc-commands.js';

// `clinic serve` runs desk PCs' commands with this very command line.
provideDeskCommands(runDeskPcCommand);

// The program's entry point: `clinic <command>`. Commands never call process.exit; the exit
// code is set here once the command has finished.
process.exitCode = await runCli(process.argv.slice(2), processIo());

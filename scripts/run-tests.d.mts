export const PROGRAM_STARTERS: readonly string[];
export function startsTheProgram(path: string): boolean;
export function testFilesIn(paths: readonly string[]): string[];
export function existingTestFiles(paths: readonly string[]): readonly string[];
export function runTestFiles(files: readonly string[], env?: NodeJS.ProcessEnv): number;

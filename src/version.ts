/** The program's version, kept in step with package.json by scripts/build.mjs's check. */
export const PROGRAM_VERSION = '1.3.0';

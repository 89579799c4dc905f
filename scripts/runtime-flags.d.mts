/** The V8 flags dist/clinic runs with; see runtime-flags.mjs. */
export declare const RUNTIME_FLAGS: readonly string[];

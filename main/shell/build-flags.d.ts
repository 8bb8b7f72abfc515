/**
 * Set by the build (scripts/build.mjs): true for `npm start` and tests, false for installers
 * (`--production`), whose bundle must not carry development-only code such as the simulator.
 */
declare const DESK_DEVELOPMENT_BUILD: boolean;

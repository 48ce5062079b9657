// The profile of a run on the emulated VAX (emu/src/profile): read the
// emulator's dump, name it, sum it up, and write it out the ways people read
// profiles — gprof's flat profile and call graph, speedscope, folded stacks
// — or compare two.  No Node or browser APIs: the CLI and the lab page both
// use it.

export * from './raw';
export * from './symbolize';
export * from './aggregate';
export * from './gprof';
export * from './folded';
export * from './speedscope';
export * from './diff';
export * from './summary';

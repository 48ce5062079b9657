// The paper's reference data: McKusick, Leffler and Karels, "Measuring and
// Improving the Performance of Berkeley UNIX".  See README.md.

export * from './types';
export * from './kernel';
export * from './paging';
export * from './namei';

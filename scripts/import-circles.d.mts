// Types of import-circles.mjs, for the TypeScript test that imports it.
export declare function importCircles(root?: string): string[][];

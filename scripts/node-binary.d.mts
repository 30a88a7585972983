// Types of node-binary.mjs, for the TypeScript tests that import it.
export declare function binOf(pkg: string, name: string, from?: string): string;
export declare const NODE_MAJORS: readonly number[];
export declare function nodeBinary(major: number): string;

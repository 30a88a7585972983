// Types of figures.mjs, for the TypeScript test that imports it.

/** One committed figure file and what its generator makes of its raw folder. */
export interface GeneratedFigureFile {
  /** The committed file, relative to the repository root. */
  readonly file: string;
  /** Its raw folder, relative to the repository root. */
  readonly raw: string;
  /** What the generator makes. */
  readonly text: string;
}

/** The command that regenerates both files. */
export declare const FIGURES_COMMAND: string;
/** Each committed figure file and what its generator makes of the raw folder now. */
export declare function generateFigureFiles(dirs?: {
  reliabilityRaw?: string;
  benchRaw?: string;
}): GeneratedFigureFile[];
/** The committed files that differ from what their generator makes, each with what to do. */
export declare function staleFigureFiles(
  generated: readonly GeneratedFigureFile[],
  read?: (file: string) => string,
): { file: string; message: string }[];

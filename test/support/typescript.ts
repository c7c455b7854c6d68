/** Compiling a file as a user's project would, for the tests of the package's typings as installed. */
import ts from 'typescript';

/** A user's project: strict, with the module resolution of Node (Node16), as a user's `cube.ts` or script is. */
export const USER_PROJECT: Readonly<ts.CompilerOptions> = {
  strict: true,
  noEmit: true,
  module: ts.ModuleKind.Node16,
  moduleResolution: ts.ModuleResolutionKind.Node16,
  target: ts.ScriptTarget.ES2022,
  // Other packages' declaration files (Cube's, a project's @types) are not under test; how the file uses them is.
  skipLibCheck: true,
  types: [],
};

/** The compiler's diagnostics of `file`, compiled as {@link USER_PROJECT} from the `node_modules` above it. */
export function diagnosticsOf(file: string): readonly ts.Diagnostic[] {
  const program = ts.createProgram([file], USER_PROJECT);
  return ts.getPreEmitDiagnostics(program);
}

/** A diagnostic's message, its chain of reasons on separate lines. */
export function messageOf(diagnostic: ts.Diagnostic): string {
  return ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
}

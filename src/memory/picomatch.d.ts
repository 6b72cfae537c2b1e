// picomatch 2 (the matcher fast-glob itself uses) ships no type declarations; we use one call.
declare module "picomatch" {
  type Matcher = (input: string) => boolean;
  function picomatch(pattern: string, options?: { dot?: boolean; nocase?: boolean }): Matcher;
  export default picomatch;
}

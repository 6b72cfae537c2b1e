// The `stopword` package ships no type declarations; we use the English list (the memory index) and
// the Spanish, German and French ones (what the capture compares, src/capture/language.ts).
declare module "stopword" {
  export const eng: string[];
  export const spa: string[];
  export const deu: string[];
  export const fra: string[];
}

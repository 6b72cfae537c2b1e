// The `stopword` package ships no type declarations; we only use the English list.
declare module "stopword" {
  export const eng: string[];
}

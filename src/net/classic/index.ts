/** The classic protocol's cipher and key agreement pieces. */
export { Blowfish, blowfishCbcDecrypt, blowfishCbcEncrypt, piFractionWords } from "./blowfish.js";
export { fromMpi, publicKeyFromComponents, randomChallenge, rsaDecrypt, rsaEncrypt, toMpi } from "./rsa.js";
export { rsaComponents } from "../keys.js";

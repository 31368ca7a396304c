/**
 * `npm run testenv:build`'s second step: builds the client-go peer (`packages/testing/clientgo`) into
 * the envtest cache beside kube-apiserver and etcd; nothing when it is current.
 */
import { buildClientGoPeer, clientGoVersion } from './clientGoPeer.ts';

const result = await buildClientGoPeer();
console.log(
  result.built
    ? `built the client-go ${clientGoVersion()} peer in ${(result.ms / 1000).toFixed(1)} s: ${result.dir}`
    : `current: ${result.dir}`,
);

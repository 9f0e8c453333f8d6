export { default } from 'typescript';

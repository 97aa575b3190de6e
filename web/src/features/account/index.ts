export { useAccount } from "./api/account";

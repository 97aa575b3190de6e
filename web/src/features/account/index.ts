export { useAccount, useUpdateAccountName } from "./api/account";

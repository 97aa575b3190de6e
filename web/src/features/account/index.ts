export { accountQueryOptions, useAccount } from "./api/account-query";
export { useUpdateAccountName } from "./api/account";

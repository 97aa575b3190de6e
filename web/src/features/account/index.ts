export { accountQueryOptions, useAccount, useUpdateAccountName } from "./api/account";

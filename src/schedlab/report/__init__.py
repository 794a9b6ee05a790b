"""Reports: plots and pages made from run outputs (jobs.csv) and campaign stores."""

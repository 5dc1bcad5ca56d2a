from sassview.views.cli import main

main()
